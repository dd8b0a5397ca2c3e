#![allow(
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::unwrap_used
)]

extern crate std;

use super::*;
use alloc::format;
use alloc::string::ToString;
use alloc::vec;
use serde_json::json;

/// Feeds `deltas` to a fresh `PartialArgs`, checking the value after each.
fn check(deltas: &[&str], want: &[Value]) {
    assert_eq!(deltas.len(), want.len());
    let mut args = PartialArgs::new();
    for (i, (delta, want)) in deltas.iter().zip(want).enumerate() {
        let got = args.push(delta).clone();
        assert_eq!(&got, want, "after delta {i} of {deltas:?}");
        assert_eq!(args.value(), want);
    }
}

/// The value of `text` pushed in one delta.
fn one(text: &str) -> Value {
    PartialArgs::new().push(text).clone()
}

/// Values open across deltas (strings, numbers, cut literals, under
/// keys, in arrays, at the root, under a repeated key) read the same
/// whatever the cuts: char by char, and in two pieces at every point.
#[test]
fn open_values_across_deltas_match_one_push() {
    let docs = [
        r#"{"a":"x\"y","b":[12.5e3,"t\u00e9",[true,null]],"a":"zz","c":-0.25}"#,
        r#"["abc",{"k":"v","k":{"n":[1,"2",false]}},"é😀",-12]"#,
        r#""root string with \n escape""#,
        "-123.5e-2",
        "[fals",
        r#"{"rows":[{"id":1,"name":"row 1","tags":["t1","t2"],"note":null}]}"#,
    ];
    for doc in docs {
        let cuts: Vec<usize> = (0..=doc.len())
            .filter(|&i| doc.is_char_boundary(i))
            .collect();
        // Char by char.
        let mut args = PartialArgs::new();
        for pair in cuts.windows(2) {
            let got = args.push(&doc[pair[0]..pair[1]]).clone();
            assert_eq!(got, one(&doc[..pair[1]]), "{:?}", &doc[..pair[1]]);
        }
        assert_eq!(args.finish(), PartialArgs::with_prefix(doc).finish());
        // Two pieces.
        for &cut in &cuts {
            let mut args = PartialArgs::new();
            assert_eq!(args.push(&doc[..cut]), &one(&doc[..cut]));
            assert_eq!(args.push(&doc[cut..]), &one(doc), "cut at {cut} of {doc:?}");
        }
    }
}

#[test]
fn spec_examples() {
    let cases: &[(&str, Value)] = &[
        ("{\"a\": tr", json!({"a": true})),
        ("[fal", json!([false])),
        ("{\"a\":n", json!({"a": null})),
        ("{\"a\": 1.", json!({"a": 1.0})),
        ("1e", json!(1.0)),
        ("{\"a\": -", json!({"a": -0.0})),
        ("{\"a\":", json!({})),
        ("{\"a\"", json!({})),
        ("{\"a", json!({})),
        ("[1,", json!([1])),
        ("\"ab\\u12", json!("ab")),
        ("\"ab\\", json!("ab")),
        ("[\"\\ud83d", json!([""])),
        ("[\"x\\ud83d\\", json!(["x"])),
        ("[\"x\\ud83d\\u", json!(["x"])),
        ("[\"x\\ud83d\\ude8", json!(["x"])),
        ("[\"x\\ud83d\\ude80", json!(["x\u{1F680}"])),
        ("   ", json!({})),
        ("", json!({})),
    ];
    for (text, want) in cases {
        assert_eq!(&one(text), want, "{text:?}");
    }
}

#[test]
fn completion_table() {
    let cases: &[(&str, Value)] = &[
        ("{", json!({})),
        ("[", json!([])),
        ("\"", json!("")),
        ("[[", json!([[]])),
        ("[{", json!([{}])),
        ("{\"a\":[{\"b\":\"x", json!({"a": [{"b": "x"}]})),
        ("{\"a\":1, \"b", json!({"a": 1})),
        ("{\"a\":1, \"b\" ", json!({"a": 1})),
        ("{\"a\":1, \"b\": ", json!({"a": 1})),
        ("{\"a\":1, \"b\": \"", json!({"a": 1, "b": ""})),
        ("{\"a\":1, \"b\": [", json!({"a": 1, "b": []})),
        ("{\"a\":1 ", json!({"a": 1})),
        ("[1 ", json!([1])),
        ("[1, 2", json!([1, 2])),
        ("[true, fa", json!([true, false])),
        ("[nul", json!([null])),
        ("[\"a\", \"b\"", json!(["a", "b"])),
        ("-", json!(-0.0)),
        ("12.", json!(12.0)),
        ("12e", json!(12.0)),
        ("12E+", json!(12.0)),
        ("12e-", json!(12.0)),
        ("-0.5e", json!(-0.5)),
        ("12", json!(12)),
        ("-7", json!(-7)),
        ("1.5", json!(1.5)),
        ("18446744073709551615", json!(18446744073709551615u64)),
        ("-9223372036854775809", json!(-9223372036854775809.0)),
        ("{\"a\":1,\"a\":2", json!({"a": 2})),
        (
            "{\"k\\\"ey\\n\":\"v\\t\\u00e9",
            json!({"k\"ey\n": "v\t\u{e9}"}),
        ),
        ("{\"a\\", json!({})),
        ("{\"hello\\nworld\": ", json!({})),
        ("[\"\\\"Dr.]\\\" Leo", json!(["\"Dr.]\" Leo"])),
        ("\"}{][\"", json!("}{][")),
        ("\"\\ud83d\\ude80\\ud83d\"", json!("\u{1F680}\u{FFFD}")),
        ("\"\\ude80x", json!("\u{FFFD}x")),
        ("  {\"a\" : [ 1 , { } ] }  ", json!({"a": [1, {}]})),
    ];
    for (text, want) in cases {
        assert_eq!(&one(text), want, "{text:?}");
    }
}

#[test]
fn incremental_steps() {
    check(
        &[
            "{\"ci",
            "ty\": \"Pa",
            "ris\", \"n\": 1",
            "2.",
            "5, \"ok\": t",
            "rue}",
        ],
        &[
            json!({}),
            json!({"city": "Pa"}),
            json!({"city": "Paris", "n": 1}),
            json!({"city": "Paris", "n": 12.0}),
            json!({"city": "Paris", "n": 12.5, "ok": true}),
            json!({"city": "Paris", "n": 12.5, "ok": true}),
        ],
    );
    // Every delta boundary inside escapes and surrogate pairs.
    check(
        &["[\"a\\", "u00", "e9\\u", "d83d", "\\", "ude80\"", "]"],
        &[
            json!(["a"]),
            json!(["a"]),
            json!(["a\u{e9}"]),
            json!(["a\u{e9}"]),
            json!(["a\u{e9}"]),
            json!(["a\u{e9}\u{1F680}"]),
            json!(["a\u{e9}\u{1F680}"]),
        ],
    );
}

#[test]
fn last_good_value_is_sticky() {
    check(
        &["[1", "]]", "", "[2]"],
        &[json!([1]), json!([1]), json!([1]), json!([1])],
    );
    check(&["{\"a\":1,", "\"b\":2 x", "}"], &vec![json!({"a": 1}); 3]);
    check(&["-2", "-2", "62"], &[json!(-2), json!(-2), json!(-2)]);
    check(&["  ", "x", "{}"], &[json!({}), json!({}), json!({})]);
    check(&["\"a\"", " \"b\""], &[json!("a"), json!("a")]);
    // A cut number that grows out of range: the reference's Infinity,
    // which prints as null (issue 11).
    check(
        &["[1e30", "0", "0"],
        &[json!([1e30]), json!([1e300]), json!([null])],
    );
}

#[test]
fn a_last_good_null_shows_as_empty_object() {
    check(&["nul", "l", "7"], &[json!(null), json!(null), json!({})]);
}

#[test]
fn restart_keeps_the_last_good_value() {
    let mut args = PartialArgs::new();
    assert_eq!(args.push("\"x\""), &json!("x"));
    args.restart("");
    assert_eq!(args.value(), &json!("x"));
    assert_eq!(args.push("  "), &json!("x"));
    assert_eq!(args.push("["), &json!([]));
    args.restart("{\"a\":");
    assert_eq!(args.value(), &json!([]));
    assert_eq!(args.push("5"), &json!({"a": 5}));
    assert_eq!(args.push("}"), &json!({"a": 5}));
    assert_eq!(args.finish(), json!({"a": 5}));
    // A prefix that is not JSON: the last good value stays.
    args.restart("}");
    assert_eq!(args.push("1"), &json!({"a": 5}));
    assert_eq!(args.finish(), json!({}));
    // The prefix's own value is never the last good one: the reference
    // only parses the buffer at TOOL_CALL_ARGS.
    let mut args = PartialArgs::with_prefix("[1");
    assert_eq!(args.value(), &json!({}));
    assert_eq!(args.push(" x"), &json!({}));
    let mut args = PartialArgs::with_prefix("nu");
    assert_eq!(args.push("ll"), &json!(null));
    assert!(args.is_complete());
}

#[test]
fn finish_is_the_whole_document_or_empty() {
    let cases: &[(&[&str], Value)] = &[
        (&["{\"a\":1}  "], json!({"a": 1})),
        (&["  12"], json!(12)),
        (&["1", "2"], json!(12)),
        (&["-1.5e3"], json!(-1500.0)),
        (&["\"a\\u00e9\""], json!("a\u{e9}")),
        (&["null"], json!(null)),
        (&["[1"], json!({})),
        (&["1."], json!({})),
        (&[""], json!({})),
        (&["  "], json!({})),
        (&["tr"], json!({})),
        (&["{} x"], json!({})),
        (&["{}", "{}"], json!({})),
        (&["[1e400]"], json!([null])),
    ];
    for (deltas, want) in cases {
        let mut args = PartialArgs::new();
        for delta in *deltas {
            args.push(delta);
        }
        assert_eq!(&args.finish(), want, "{deltas:?}");
        assert_eq!(
            args.is_complete(),
            want != &json!({}) || deltas == &["{\"a\":1}  "]
        );
    }
}

#[test]
fn nesting_up_to_the_host_depth() {
    // The host's limit (512), beyond the 128 levels serde_json stops at.
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    let mut want = json!([]);
    for _ in 1..512 {
        want = json!([want]);
    }
    assert_eq!(one(&deep(512)), want);
    let mut args = PartialArgs::new();
    args.push("[");
    assert_eq!(args.push(&deep(512)), &json!([]));
}

// ---- the non-incremental reference ----

/// What can be open at the end of a valid prefix.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Ctx {
    Top,
    Str,
    Esc,
    Hex(u8, u16),
    Num(bool),
    Lit(&'static str, usize),
    ArrValue,
    ArrComma,
    ObjKey,
    ObjColon,
    ObjValue,
    ObjComma,
}

/// Completes a valid JSON prefix by the section 5 rules, the simple way:
/// one pass over the whole text, a stack of contexts and a cut point
/// (where a dangling key or comma, or a cut escape, begins).
fn complete(prefix: &str) -> String {
    let mut stack = vec![Ctx::Top];
    // (byte position, stack length, is it an escape)
    let mut cut: Option<(usize, usize, bool)> = None;
    let chars: Vec<(usize, char)> = prefix.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        let (pos, c) = chars[i];
        let top = *stack.last().unwrap();
        let mut advance = true;
        let start = |stack: &mut Vec<Ctx>, c: char| match c {
            '"' => stack.push(Ctx::Str),
            '-' => stack.push(Ctx::Num(true)),
            '0'..='9' => stack.push(Ctx::Num(false)),
            't' => stack.push(Ctx::Lit("true", 1)),
            'f' => stack.push(Ctx::Lit("false", 1)),
            'n' => stack.push(Ctx::Lit("null", 1)),
            '[' => stack.push(Ctx::ArrValue),
            '{' => stack.push(Ctx::ObjKey),
            _ => {}
        };
        let ws = matches!(c, ' ' | '\t' | '\n' | '\r');
        match top {
            Ctx::Top => start(&mut stack, c),
            Ctx::Str => match c {
                '"' => {
                    stack.pop();
                }
                '\\' => {
                    cut.get_or_insert((pos, stack.len(), true));
                    stack.push(Ctx::Esc);
                }
                // A high half was followed by text: not in our documents.
                _ => {}
            },
            Ctx::Esc => {
                stack.pop();
                if c == 'u' {
                    stack.push(Ctx::Hex(0, 0));
                } else if matches!(cut, Some((_, _, true))) {
                    cut = None;
                }
            }
            Ctx::Hex(n, unit) => {
                let unit = unit * 16 + c.to_digit(16).unwrap() as u16;
                stack.pop();
                if n < 3 {
                    stack.push(Ctx::Hex(n + 1, unit));
                } else if !(0xD800..0xDC00).contains(&unit) && matches!(cut, Some((_, _, true))) {
                    // Complete, unless it is a high half: then the cut
                    // stays before it until its low half is complete.
                    cut = None;
                }
            }
            Ctx::Num(_) => {
                if c.is_ascii_digit() {
                    *stack.last_mut().unwrap() = Ctx::Num(false);
                } else if matches!(c, '.' | 'e' | 'E' | '+' | '-') {
                    *stack.last_mut().unwrap() = Ctx::Num(true);
                } else {
                    stack.pop();
                    advance = false;
                }
            }
            Ctx::Lit(word, n) => {
                if n < word.len() {
                    *stack.last_mut().unwrap() = Ctx::Lit(word, n + 1);
                } else {
                    stack.pop();
                    advance = false;
                }
            }
            Ctx::ArrValue | Ctx::ArrComma | Ctx::ObjComma if c == ']' || c == '}' => {
                stack.pop();
            }
            Ctx::ObjKey if c == '}' => {
                stack.pop();
            }
            Ctx::ArrValue | Ctx::ObjValue if !ws => {
                if matches!(cut, Some((_, _, false))) {
                    cut = None;
                }
                let next = if top == Ctx::ArrValue {
                    Ctx::ArrComma
                } else {
                    Ctx::ObjComma
                };
                *stack.last_mut().unwrap() = next;
                start(&mut stack, c);
            }
            Ctx::ArrComma if c == ',' => {
                cut.get_or_insert((pos, stack.len(), false));
                *stack.last_mut().unwrap() = Ctx::ArrValue;
            }
            Ctx::ObjComma if c == ',' => {
                cut.get_or_insert((pos, stack.len(), false));
                *stack.last_mut().unwrap() = Ctx::ObjKey;
            }
            Ctx::ObjKey if c == '"' => {
                cut.get_or_insert((pos, stack.len(), false));
                *stack.last_mut().unwrap() = Ctx::ObjColon;
                stack.push(Ctx::Str);
            }
            Ctx::ObjColon if c == ':' => *stack.last_mut().unwrap() = Ctx::ObjValue,
            Ctx::ArrValue
            | Ctx::ArrComma
            | Ctx::ObjKey
            | Ctx::ObjColon
            | Ctx::ObjValue
            | Ctx::ObjComma => {}
        }
        if advance {
            i += 1;
        }
    }
    let mut out = String::new();
    match cut {
        Some((pos, len, _)) => {
            out.push_str(&prefix[..pos]);
            stack.truncate(len);
        }
        None => out.push_str(prefix),
    }
    for ctx in stack.iter().rev() {
        match ctx {
            Ctx::Str => out.push('"'),
            Ctx::Num(true) => out.push('0'),
            Ctx::Lit(word, n) => out.push_str(&word[*n..]),
            Ctx::ArrValue | Ctx::ArrComma => out.push(']'),
            Ctx::ObjKey | Ctx::ObjColon | Ctx::ObjValue | Ctx::ObjComma => out.push('}'),
            Ctx::Top | Ctx::Esc | Ctx::Hex(..) | Ctx::Num(_) => {}
        }
    }
    out
}

struct Lcg(u64);
impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

fn gen_ws(rng: &mut Lcg, out: &mut String) {
    for _ in 0..rng.below(4).saturating_sub(2) {
        out.push([' ', '\n', '\t', '\r'][rng.below(4)]);
    }
}

fn gen_string(rng: &mut Lcg, out: &mut String) {
    out.push('"');
    for _ in 0..rng.below(7) {
        let c = [
            'a', 'Z', ' ', '"', '\\', '/', '\n', '\u{1}', 'é', '€', '🚀', ']', '}', ',',
        ][rng.below(14)];
        match (c, rng.below(3)) {
            ('"', _) => out.push_str("\\\""),
            ('\\', _) => out.push_str("\\\\"),
            ('\n', 0) => out.push_str("\\n"),
            ('/', 0) => out.push_str("\\/"),
            (c, 0) | (c @ ('\n' | '\u{1}'), _) => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{u:04X}"));
                }
            }
            (c, _) => out.push(c),
        }
    }
    out.push('"');
}

fn gen_value(rng: &mut Lcg, depth: usize, out: &mut String) {
    gen_ws(rng, out);
    match rng.below(if depth > 3 { 5 } else { 7 }) {
        0 => out.push_str(["true", "false", "null"][rng.below(3)]),
        1 => out.push_str(
            [
                "0",
                "-0",
                "7",
                "-12",
                "3.25",
                "1e3",
                "-4.5E-2",
                "0.0001",
                "98765432109",
                "2.5e+7",
                "184467440737095516150",
            ][rng.below(11)],
        ),
        2 | 3 => gen_string(rng, out),
        4 => out.push_str(&rng.below(1000).to_string()),
        5 => {
            out.push('[');
            for i in 0..rng.below(4) {
                if i > 0 {
                    out.push(',');
                }
                gen_value(rng, depth + 1, out);
            }
            gen_ws(rng, out);
            out.push(']');
        }
        _ => {
            out.push('{');
            for i in 0..rng.below(4) {
                if i > 0 {
                    out.push(',');
                }
                gen_ws(rng, out);
                gen_string(rng, out);
                gen_ws(rng, out);
                out.push(':');
                gen_value(rng, depth + 1, out);
            }
            gen_ws(rng, out);
            out.push('}');
        }
    }
    gen_ws(rng, out);
}

/// Random char-boundary split points of `text`.
fn random_cuts(rng: &mut Lcg, text: &str) -> Vec<usize> {
    let mut cuts = Vec::new();
    let mut at = 0;
    while at < text.len() {
        at += 1 + rng.below(5);
        while at < text.len() && !text.is_char_boundary(at) {
            at += 1;
        }
        cuts.push(at.min(text.len()));
    }
    cuts
}

#[test]
fn the_reference_completes_spec_examples() {
    assert_eq!(complete("{\"a\": tr"), "{\"a\": true}");
    assert_eq!(complete("{\"a\":1, \"b\": "), "{\"a\":1}");
    assert_eq!(complete("[\"x\\ud83d\\u"), "[\"x\"]");
    assert_eq!(complete("1e+"), "1e+0");
}

/// For random prefixes of random documents (some followed by bytes
/// that are not JSON), the incremental value equals the reference:
/// complete the prefix text, parse it with serde_json, and fall back
/// to the last good value.
#[test]
fn incremental_equals_reference_on_random_prefixes() {
    let mut rng = Lcg(42);
    for round in 0..600 {
        let mut doc = String::new();
        gen_value(&mut rng, 0, &mut doc);
        let valid: Value = serde_json::from_str(&doc).unwrap_or_else(|e| panic!("{e}: {doc}"));
        // Sometimes some whitespace, then bytes that end the JSON.
        let mut text = doc.clone();
        let mut valid_len = text.len();
        if round % 3 == 0 {
            gen_ws(&mut rng, &mut text);
            valid_len = text.len();
            let junk = [" x", " 1", "]", ",", "{}", "\"", "}"][rng.below(7)];
            text.push_str(junk);
            // Whitespace before the bad byte still belongs to the JSON.
            valid_len += junk.len() - junk.trim_start().len();
        }
        let mut args = PartialArgs::new();
        let mut last_good = json!({});
        let mut prev = 0;
        for cut in random_cuts(&mut rng, &text) {
            let got = args.push(&text[prev..cut]).clone();
            prev = cut;
            let want = if cut <= valid_len {
                match serde_json::from_str::<Value>(&complete(&text[..cut])) {
                    Ok(v) => {
                        last_good = if v.is_null() { json!({}) } else { v.clone() };
                        v
                    }
                    Err(_) => last_good.clone(),
                }
            } else {
                last_good.clone()
            };
            assert_eq!(got, want, "prefix {:?} of {text:?}", &text[..cut]);
        }
        let want_final = if valid_len == text.len() {
            valid
        } else {
            json!({})
        };
        assert_eq!(args.finish(), want_final, "{text:?}");
    }
}

extern crate std;

use super::*;
use serde_json::{Map, Value};
use std::format;
use std::string::{String, ToString};
use std::vec;
use std::vec::Vec;

/// An owned token; consecutive Text/Number fragments are merged.
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Plain(Token<'static>),
    Text(String),
    Number(String),
}

fn own(token: Token<'_>) -> Tok {
    match token {
        Token::Text(t) => Tok::Text(t.to_string()),
        Token::Char(c) => Tok::Text(c.to_string()),
        Token::Number(t) => Tok::Number(t.to_string()),
        Token::ObjectStart => Tok::Plain(Token::ObjectStart),
        Token::ObjectEnd => Tok::Plain(Token::ObjectEnd),
        Token::ArrayStart => Tok::Plain(Token::ArrayStart),
        Token::ArrayEnd => Tok::Plain(Token::ArrayEnd),
        Token::KeyStart => Tok::Plain(Token::KeyStart),
        Token::KeyEnd => Tok::Plain(Token::KeyEnd),
        Token::StrStart => Tok::Plain(Token::StrStart),
        Token::StrEnd => Tok::Plain(Token::StrEnd),
        Token::NumberEnd => Tok::Plain(Token::NumberEnd),
        Token::True => Tok::Plain(Token::True),
        Token::False => Tok::Plain(Token::False),
        Token::Null => Tok::Plain(Token::Null),
    }
}

/// Appends a token, merging it with a preceding fragment of its kind.
fn push_merged(out: &mut Vec<Tok>, tok: Tok) {
    match (out.last_mut(), &tok) {
        (Some(Tok::Text(a)), Tok::Text(b)) | (Some(Tok::Number(a)), Tok::Number(b)) => {
            a.push_str(b)
        }
        _ => out.push(tok),
    }
}

/// Feeds `pieces` in order, then finishes; checks the invariants that
/// hold for every call (progress, non-empty text, offset bookkeeping).
fn run_pieces<const D: usize>(pieces: &[&[u8]]) -> (Vec<Tok>, Option<JsonError>) {
    let mut tz: Tokenizer<D> = Tokenizer::new();
    let mut out = Vec::new();
    let mut total = 0u64;
    for piece in pieces {
        let mut rest = *piece;
        loop {
            match tz.next(rest) {
                Ok((used, tok)) => {
                    assert!(used <= rest.len());
                    total += used as u64;
                    rest = &rest[used..];
                    match tok {
                        Some(Token::Text(t)) | Some(Token::Number(t)) if t.is_empty() => {
                            panic!("empty fragment")
                        }
                        Some(tok) => push_merged(&mut out, own(tok)),
                        None => {
                            assert!(rest.is_empty(), "None before the input was used up");
                            break;
                        }
                    }
                }
                Err(e) => {
                    assert_eq!(tz.next(rest), Err(e), "error must stick");
                    assert_eq!(tz.finish(), Err(e), "error must stick in finish");
                    return (out, Some(e));
                }
            }
        }
        assert_eq!(tz.offset(), total);
    }
    loop {
        match tz.finish() {
            Ok(Some(tok)) => push_merged(&mut out, own(tok)),
            Ok(None) => {
                assert!(tz.is_done());
                assert_eq!(tz.depth(), 0);
                return (out, None);
            }
            Err(e) => return (out, Some(e)),
        }
    }
}

fn run(doc: &[u8]) -> (Vec<Tok>, Option<JsonError>) {
    run_pieces::<32>(&[doc])
}

fn err(doc: &[u8]) -> JsonError {
    run(doc)
        .1
        .unwrap_or_else(|| panic!("{:?} accepted", std::str::from_utf8(doc)))
}

fn err_at(kind: JsonErrorKind, offset: u64) -> JsonError {
    JsonError { kind, offset }
}

/// Every two-piece split, byte at a time and some random splits give
/// the same merged tokens and error as the whole document.
fn assert_split_invariant(doc: &[u8]) {
    let whole = run(doc);
    for i in 0..=doc.len() {
        let (a, b) = doc.split_at(i);
        assert_eq!(run_pieces::<32>(&[a, b]), whole, "split at {i} of {doc:?}");
    }
    let bytes: Vec<&[u8]> = doc.chunks(1).collect();
    assert_eq!(run_pieces::<32>(&bytes), whole, "byte at a time {doc:?}");
    let mut rng = Lcg(doc.len() as u64 + 7);
    for _ in 0..8 {
        let mut pieces = Vec::new();
        let mut rest = doc;
        while !rest.is_empty() {
            let n = (rng.below(6) as usize).min(rest.len());
            let (a, b) = rest.split_at(n);
            pieces.push(a);
            rest = b;
        }
        assert_eq!(run_pieces::<32>(&pieces), whole, "random split of {doc:?}");
    }
}

struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Rebuilds a value from merged tokens (numbers parsed by serde_json).
fn build(toks: &[Tok]) -> Value {
    enum Open {
        Arr(Vec<Value>),
        Obj(Map<String, Value>, Option<String>),
    }
    let mut stack: Vec<Open> = Vec::new();
    let mut result = None;
    let mut text = String::new();
    let mut in_key = false;
    let mut place = |stack: &mut Vec<Open>, v: Value| match stack.last_mut() {
        Some(Open::Arr(a)) => a.push(v),
        Some(Open::Obj(m, k)) => {
            m.insert(k.take().unwrap(), v);
        }
        None => result = Some(v),
    };
    for tok in toks {
        match tok {
            Tok::Text(t) => text.push_str(t),
            Tok::Number(n) => text.push_str(n),
            Tok::Plain(Token::NumberEnd) => {
                let v: Value = serde_json::from_str(&text).unwrap();
                text.clear();
                place(&mut stack, v);
            }
            Tok::Plain(Token::ObjectStart) => stack.push(Open::Obj(Map::new(), None)),
            Tok::Plain(Token::ArrayStart) => stack.push(Open::Arr(Vec::new())),
            Tok::Plain(Token::ObjectEnd) => match stack.pop() {
                Some(Open::Obj(m, None)) => place(&mut stack, Value::Object(m)),
                _ => panic!("bad ObjectEnd"),
            },
            Tok::Plain(Token::ArrayEnd) => match stack.pop() {
                Some(Open::Arr(a)) => place(&mut stack, Value::Array(a)),
                _ => panic!("bad ArrayEnd"),
            },
            Tok::Plain(Token::KeyStart) => in_key = true,
            Tok::Plain(Token::KeyEnd) => {
                assert!(in_key);
                in_key = false;
                match stack.last_mut() {
                    Some(Open::Obj(_, k)) => *k = Some(core::mem::take(&mut text)),
                    _ => panic!("key outside object"),
                }
            }
            Tok::Plain(Token::StrStart) => {}
            Tok::Plain(Token::StrEnd) => {
                let s = core::mem::take(&mut text);
                place(&mut stack, Value::String(s));
            }
            Tok::Plain(Token::True) => place(&mut stack, Value::Bool(true)),
            Tok::Plain(Token::False) => place(&mut stack, Value::Bool(false)),
            Tok::Plain(Token::Null) => place(&mut stack, Value::Null),
            Tok::Plain(t) => panic!("unexpected {t:?}"),
        }
    }
    assert!(stack.is_empty());
    result.unwrap()
}

fn p(t: Token<'static>) -> Tok {
    Tok::Plain(t)
}
fn txt(s: &str) -> Tok {
    Tok::Text(s.to_string())
}
fn num(s: &str) -> Tok {
    Tok::Number(s.to_string())
}

#[test]
fn every_token_kind() {
    let doc = br#" {"k\u00e9y": [1, -2.5e+3, true, false, null, "x\n", {}, []]} "#;
    let (toks, error) = run(doc);
    assert_eq!(error, None);
    use Token::*;
    let want = vec![
        p(ObjectStart),
        p(KeyStart),
        txt("k\u{e9}y"),
        p(KeyEnd),
        p(ArrayStart),
        num("1"),
        p(NumberEnd),
        num("-2.5e+3"),
        p(NumberEnd),
        p(True),
        p(False),
        p(Null),
        p(StrStart),
        txt("x\n"),
        p(StrEnd),
        p(ObjectStart),
        p(ObjectEnd),
        p(ArrayStart),
        p(ArrayEnd),
        p(ArrayEnd),
        p(ObjectEnd),
    ];
    assert_eq!(toks, want);
}

#[test]
fn top_level_scalars() {
    use Token::*;
    assert_eq!(run(b"42").0, vec![num("42"), p(NumberEnd)]);
    assert_eq!(run(b" -0.5E-7 ").0, vec![num("-0.5E-7"), p(NumberEnd)]);
    assert_eq!(run(b"\"\"").0, vec![p(StrStart), p(StrEnd)]);
    assert_eq!(run(b"null").0, vec![p(Null)]);
    assert_eq!(run(b"\ttrue\r\n").0, vec![p(True)]);
}

#[test]
fn plain_text_is_zero_copy() {
    let doc = br#"["hello world"]"#;
    let mut tz: Tokenizer = Tokenizer::new();
    let (n, _) = tz.next(doc).unwrap();
    let (_, _) = tz.next(&doc[n..]).unwrap();
    let (_, tok) = tz.next(&doc[n + 1..]).unwrap();
    match tok {
        Some(Token::Text(t)) => {
            assert_eq!(t, "hello world");
            assert_eq!(t.as_ptr(), doc[n + 1..].as_ptr());
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn fragments_and_progress() {
    let mut tz: Tokenizer = Tokenizer::new();
    assert_eq!(tz.next(b"[12"), Ok((1, Some(Token::ArrayStart))));
    assert_eq!(tz.next(b"12"), Ok((2, Some(Token::Number("12")))));
    assert_eq!(tz.next(b""), Ok((0, None)));
    assert_eq!(tz.next(b"3,"), Ok((1, Some(Token::Number("3")))));
    assert_eq!(tz.next(b","), Ok((0, Some(Token::NumberEnd))));
    assert_eq!(tz.next(b","), Ok((1, None)));
    assert_eq!(tz.next(b"\"a"), Ok((1, Some(Token::StrStart))));
    assert_eq!(tz.next(b"a"), Ok((1, Some(Token::Text("a")))));
    assert_eq!(tz.next(b"\\"), Ok((1, None)));
    assert!(tz.in_string());
    assert_eq!(tz.next(b"n\"]"), Ok((1, Some(Token::Char('\n')))));
    assert_eq!(tz.next(b"\"]"), Ok((1, Some(Token::StrEnd))));
    assert_eq!(tz.depth(), 1);
    assert!(!tz.is_done());
    assert_eq!(tz.next(b"]"), Ok((1, Some(Token::ArrayEnd))));
    assert!(tz.is_done());
    assert_eq!(tz.offset(), 11);
    assert_eq!(tz.finish(), Ok(None));
}

#[test]
fn key_end_waits_for_colon() {
    let mut tz: Tokenizer = Tokenizer::new();
    assert_eq!(tz.next(b"{"), Ok((1, Some(Token::ObjectStart))));
    assert_eq!(tz.next(b"\"k\""), Ok((1, Some(Token::KeyStart))));
    assert!(tz.in_key());
    assert_eq!(tz.next(b"k\""), Ok((1, Some(Token::Text("k")))));
    assert_eq!(tz.next(b"\" "), Ok((2, None)));
    assert!(!tz.in_key());
    assert_eq!(tz.next(b" : 1"), Ok((2, Some(Token::KeyEnd))));
}

#[test]
fn top_level_number_ends_at_finish() {
    let mut tz: Tokenizer = Tokenizer::new();
    assert_eq!(tz.next(b"7"), Ok((1, Some(Token::Number("7")))));
    assert_eq!(tz.next(b""), Ok((0, None)));
    assert!(!tz.is_done());
    assert_eq!(tz.finish(), Ok(Some(Token::NumberEnd)));
    assert!(tz.is_done());
    assert_eq!(tz.finish(), Ok(None));
    // Whitespace ends it too.
    tz.reset();
    assert_eq!(tz.next(b"7 "), Ok((1, Some(Token::Number("7")))));
    assert_eq!(tz.next(b" "), Ok((0, Some(Token::NumberEnd))));
    assert!(tz.is_done());
}

#[test]
fn pending_literal_reports_cut_literals() {
    let mut tz: Tokenizer = Tokenizer::new();
    assert_eq!(tz.pending_literal(), None);
    assert_eq!(tz.next(b"[tr"), Ok((1, Some(Token::ArrayStart))));
    assert_eq!(tz.next(b"tr"), Ok((2, None)));
    assert_eq!(tz.pending_literal(), Some(Literal::True));
    assert_eq!(tz.next(b"ue,f"), Ok((2, Some(Token::True))));
    assert_eq!(tz.pending_literal(), None);
    assert_eq!(tz.next(b",f"), Ok((2, None)));
    assert_eq!(tz.pending_literal(), Some(Literal::False));
    assert_eq!(tz.next(b"alse,n"), Ok((4, Some(Token::False))));
    assert_eq!(tz.next(b",n"), Ok((2, None)));
    assert_eq!(tz.pending_literal(), Some(Literal::Null));
    assert_eq!(tz.finish().unwrap_err().kind, JsonErrorKind::UnexpectedEnd);
}

#[test]
fn reset_clears_error_and_offset() {
    let mut tz: Tokenizer = Tokenizer::new();
    let e = tz.next(b"  x").unwrap_err();
    assert_eq!(e, err_at(JsonErrorKind::UnexpectedByte(b'x'), 2));
    assert_eq!(tz.error(), Some(e));
    assert_eq!(tz.next(b"[]"), Err(e));
    tz.reset();
    assert_eq!(tz.error(), None);
    assert_eq!(tz.offset(), 0);
    assert_eq!(tz.next(b"[]"), Ok((1, Some(Token::ArrayStart))));
}

#[test]
fn every_error_kind_with_offset() {
    use JsonErrorKind::*;
    let cases: &[(&[u8], JsonErrorKind, u64)] = &[
        (b"[1 2]", UnexpectedByte(b'2'), 3),
        (b"{\"a\" 1}", UnexpectedByte(b'1'), 5),
        (b"[1,]", UnexpectedByte(b']'), 3),
        (b"{\"a\":1,}", UnexpectedByte(b'}'), 7),
        (b"[}", UnexpectedByte(b'}'), 1),
        (b"{]", UnexpectedByte(b']'), 1),
        (b"[1}", UnexpectedByte(b'}'), 2),
        (b"[tru]", UnexpectedByte(b']'), 4),
        (b"[+1]", UnexpectedByte(b'+'), 1),
        (b"[.5]", UnexpectedByte(b'.'), 1),
        (b"", UnexpectedEnd, 0),
        (b"  ", UnexpectedEnd, 2),
        (b"[1", UnexpectedEnd, 2),
        (b"{\"a\":", UnexpectedEnd, 5),
        (b"\"abc", UnexpectedEnd, 4),
        (b"nul", UnexpectedEnd, 3),
        (b"[\"\xff\"]", InvalidUtf8, 2),
        (b"[\"ab\xc0\x80\"]", InvalidUtf8, 4),
        (b"[\"\xed\xa0\x80\"]", InvalidUtf8, 2),
        (b"[\"\xe2\x82\"]", InvalidUtf8, 2),
        (b"[\"a\tb\"]", ControlCharacter, 3),
        (b"[\"\x00\"]", ControlCharacter, 2),
        (b"[\"\\x\"]", InvalidEscape, 3),
        (b"[\"\\u12G4\"]", InvalidEscape, 6),
        (b"[\"\\ud800\\x\"]", InvalidEscape, 9),
        (b"[01]", InvalidNumber, 2),
        (b"[1.]", InvalidNumber, 3),
        (b"[-]", InvalidNumber, 2),
        (b"[1e]", InvalidNumber, 3),
        (b"[1e+]", InvalidNumber, 4),
        (b"[-01]", InvalidNumber, 3),
        (b"1.", InvalidNumber, 2),
        (b"-", InvalidNumber, 1),
        (b"1 2", TrailingData, 2),
        (b"{} {}", TrailingData, 3),
        (b"null,", TrailingData, 4),
        (b"\"a\"]", TrailingData, 3),
    ];
    for &(doc, kind, offset) in cases {
        assert_eq!(
            err(doc),
            err_at(kind, offset),
            "{:?}",
            String::from_utf8_lossy(doc)
        );
        assert_split_invariant(doc);
    }
    let mut tz: Tokenizer<2> = Tokenizer::new();
    let e = loop {
        match tz.next(b"[[[") {
            Ok((_, Some(_))) => {}
            Ok((_, None)) => panic!("no error"),
            Err(e) => break e,
        }
    };
    assert_eq!(e.kind, TooDeep);
}

#[test]
fn escapes_decode() {
    let (toks, e) = run(br#""\" \\ \/ \b \f \n \r \t \u0041\u00e9\u20ac""#);
    assert_eq!(e, None);
    assert_eq!(
        toks,
        vec![
            p(Token::StrStart),
            txt("\" \\ / \u{8} \u{c} \n \r \t A\u{e9}\u{20ac}"),
            p(Token::StrEnd)
        ]
    );
}

fn string_of(doc: &[u8]) -> String {
    let (toks, e) = run(doc);
    assert_eq!(e, None, "{doc:?}");
    match toks.as_slice() {
        [Tok::Plain(Token::StrStart), Tok::Text(t), Tok::Plain(Token::StrEnd)] => t.clone(),
        [Tok::Plain(Token::StrStart), Tok::Plain(Token::StrEnd)] => String::new(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn surrogates() {
    let cases: &[(&[u8], &str)] = &[
        (br#""\ud83d\ude80""#, "\u{1F680}"),
        (br#""\uD83D\uDE80x""#, "\u{1F680}x"),
        (br#""\ud83d""#, "\u{FFFD}"),
        (br#""\ud83dx""#, "\u{FFFD}x"),
        (br#""\ud83d\n""#, "\u{FFFD}\n"),
        (br#""\ude80""#, "\u{FFFD}"),
        (br#""\ude80\ud83d""#, "\u{FFFD}\u{FFFD}"),
        (br#""\ud83d\ud83d\ude80""#, "\u{FFFD}\u{1F680}"),
        (br#""\ud83d\u0041""#, "\u{FFFD}A"),
        (br#""\udbff\udfff""#, "\u{10FFFF}"),
        (br#""\ud800\udc00""#, "\u{10000}"),
    ];
    for &(doc, want) in cases {
        assert_eq!(string_of(doc), want, "{:?}", String::from_utf8_lossy(doc));
        assert_split_invariant(doc);
    }
}

#[test]
fn utf8_split_anywhere() {
    let doc = "[\"é€🚀 x\u{10FFFF}\", \"\u{7FF}\u{800}\u{FFFF}\u{10000}\"]".as_bytes();
    assert_split_invariant(doc);
    assert_eq!(
        build(&run(doc).0),
        serde_json::from_slice::<Value>(doc).unwrap()
    );
    for bad in [
        &b"[\"a\xf0\x9f\x9a\"]"[..],
        b"[\"\xf5\x80\x80\x80\"]",
        b"[\"\x80\"]",
        b"[\"\xe0\x80\x80\"]",
        b"[\"ok\xc3\"]",
        b"[\"\xf4\x90\x80\x80\"]",
    ] {
        assert_eq!(err(bad).kind, JsonErrorKind::InvalidUtf8, "{bad:?}");
        assert_split_invariant(bad);
    }
    // A character cut by the end of the document is an unexpected end.
    assert_eq!(err(b"[\"ok\xc3").kind, JsonErrorKind::UnexpectedEnd);
}

fn nested(depth: usize) -> Vec<u8> {
    let mut doc = Vec::new();
    for i in 0..depth {
        doc.extend_from_slice(if i % 2 == 0 { b"{\"k\":" } else { b"[" });
    }
    doc.push(b'0');
    for i in (0..depth).rev() {
        doc.push(if i % 2 == 0 { b'}' } else { b']' });
    }
    doc
}

fn depth_check<const D: usize>() {
    let ok = nested(D);
    assert_eq!(run_pieces::<D>(&[&ok]).1, None, "depth {D}");
    let deep = nested(D + 1);
    let e = run_pieces::<D>(&[&deep]).1.unwrap();
    assert_eq!(e.kind, JsonErrorKind::TooDeep);
    let last_open = deep.iter().rposition(|&b| b == b'{' || b == b'[').unwrap();
    assert_eq!(e.offset, last_open as u64);
}

#[test]
fn depth_limit_exactly() {
    depth_check::<1>();
    depth_check::<4>();
    depth_check::<32>();
    depth_check::<63>();
    depth_check::<64>();
    let mut tz: Tokenizer<0> = Tokenizer::new();
    assert_eq!(tz.next(b"[").unwrap_err().kind, JsonErrorKind::TooDeep);
    assert_eq!(run_pieces::<0>(&[b"1"]).1, None);
    // The bit stack must tell object from array at every level.
    let doc = nested(64);
    let (toks, e) = run_pieces::<64>(&[&doc]);
    assert_eq!(e, None);
    assert_eq!(build(&toks), serde_json::from_slice::<Value>(&doc).unwrap());
}

/// Valid documents: hand-picked plus generated ones.
fn valid_docs() -> Vec<Vec<u8>> {
    let mut docs: Vec<Vec<u8>> = [
        "0",
        "-0",
        "1e5",
        "1E+5",
        "-1.25e-10",
        "123456789012345678901234567890",
        "0.1",
        "[]",
        "{}",
        "[[]]",
        "[{}]",
        "\"\"",
        "\" \"",
        "true",
        "false",
        "null",
        " [ 1 , 2 , [ 3 ] , { \"a\" : { } } ] ",
        "{\"a\":[1,{\"b\":null}],\"c\":\"d\"}",
        "[\"\\u0000\", \"\\\"\", \"\\\\\\/\"]",
        "{\"\":\"\"}",
        "{\"a\":1,\"a\":2}",
        "[1.5,-0.0,1e-400,1.7976931348623157e308]",
        "\"\u{2028}\u{2029}\"",
        "\"\\ud83d\\ude80 \u{1F680}\"",
        "[18446744073709551615, -9223372036854775808]",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    let mut rng = Lcg(1);
    for _ in 0..150 {
        let mut doc = String::new();
        gen_value(&mut rng, 0, &mut doc);
        docs.push(doc.into_bytes());
    }
    docs
}

fn gen_ws(rng: &mut Lcg, out: &mut String) {
    for _ in 0..rng.below(3).saturating_sub(1) {
        out.push([' ', '\n', '\t', '\r'][rng.below(4) as usize]);
    }
}

fn gen_string(rng: &mut Lcg, out: &mut String) {
    out.push('"');
    for _ in 0..rng.below(8) {
        let c = [
            'a', 'Z', ' ', '"', '\\', '/', '\n', '\u{1}', 'é', '€', '🚀', '\u{FFFF}',
        ][rng.below(12) as usize];
        match (c, rng.below(3)) {
            ('"', _) => out.push_str("\\\""),
            ('\\', _) => out.push_str("\\\\"),
            ('\n', 0) => out.push_str("\\n"),
            (c, 0) | (c @ ('\n' | '\u{1}'), _) => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{:04x}", u));
                }
            }
            (c, _) => out.push(c),
        }
    }
    out.push('"');
}

fn gen_value(rng: &mut Lcg, depth: usize, out: &mut String) {
    gen_ws(rng, out);
    let kind = if depth > 4 {
        rng.below(5)
    } else {
        rng.below(7)
    };
    match kind {
        0 => out.push_str(["true", "false", "null"][rng.below(3) as usize]),
        1 => {
            let n = [
                "0",
                "-0",
                "7",
                "-12",
                "3.25",
                "1e3",
                "-4.5E-2",
                "0.0001",
                "98765432109",
                "1e-400",
                "2.5e+7",
            ];
            out.push_str(n[rng.below(n.len() as u64) as usize]);
        }
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

#[test]
fn agrees_with_serde_json_on_valid_documents() {
    for doc in valid_docs() {
        let want: Value = serde_json::from_slice(&doc)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&doc)));
        let (toks, e) = run(&doc);
        assert_eq!(e, None, "{}", String::from_utf8_lossy(&doc));
        assert_eq!(build(&toks), want, "{}", String::from_utf8_lossy(&doc));
    }
}

#[test]
fn split_invariance_on_valid_documents() {
    for doc in valid_docs().iter().take(80) {
        assert_split_invariant(doc);
    }
}

/// JSONTestSuite-style `n_` cases: every one must be rejected.
const INVALID: &[&[u8]] = &[
    b"",
    b" ",
    b"[",
    b"]",
    b"{",
    b"}",
    b"[1,]",
    b"[,1]",
    b"[1 2]",
    b"[1,,2]",
    b"[,]",
    b"{,}",
    b"{\"a\" 1}",
    b"{\"a\":1,}",
    b"{\"a\"::1}",
    b"{1:2}",
    b"{'a':1}",
    b"{a:1}",
    b"{\"a\":1 \"b\":2}",
    b"[1:2]",
    b"[\"a\":1]",
    b"{\"a\"}",
    b"{\"a\",\"b\"}",
    b"[[]",
    b"[]]",
    b"[}",
    b"{]",
    b"[1]x",
    b"[1] [2]",
    b"{}{}",
    b"1 2",
    b"\"a\" \"b\"",
    b"[01]",
    b"[00]",
    b"[-01]",
    b"[1.]",
    b"[-]",
    b"[- 1]",
    b"[1e]",
    b"[1e+]",
    b"[1E-]",
    b"[+1]",
    b"[.5]",
    b"[-.5]",
    b"[1.e5]",
    b"[0x1]",
    b"[0x]",
    b"[Infinity]",
    b"[-Infinity]",
    b"[NaN]",
    b"[1.5e]",
    b"[2.]",
    b"[1e5.0]",
    b"[1..2]",
    b"[1.2.3]",
    b"[--1]",
    b"[1-]",
    b"[tru]",
    b"[True]",
    b"[nul]",
    b"[NULL]",
    b"[fals]",
    b"[truefalse]",
    b"[null,]",
    b"[\"\\x\"]",
    b"[\"\\u12\"]",
    b"[\"\\u12G4\"]",
    b"[\"\\U0041\"]",
    b"[\"\\\"]",
    b"[\"\\a\"]",
    b"[\"\\'\"]",
    b"[\"a\tb\"]",
    b"[\"a\nb\"]",
    b"[\"\x7f\x1f\"]",
    b"[\"\"",
    b"[\"abc",
    b"{\"a\":",
    b"{\"a",
    b"[\xff]",
    b"[\"\xff\"]",
    b"[\"\xc0\x80\"]",
    b"[\"\xed\xa0\x80\"]",
    b"[\"\xf5\x80\x80\x80\"]",
    b"[\"\xe2\x82\"]",
    b"[\"\x80\"]",
    b"/* c */[]",
    b"[]//",
    b"\xef\xbb\xbf[]",
    b"['a']",
    b"[\"a\"\"b\"]",
    b"[1]]",
    b"{\"a\":{\"b\":1}}}",
    b"nul",
    b"tr",
    b"-",
    b"1.",
    b"\"",
    b"[\x00]",
    b"[1,\n]",
    b"{\"a\":1,,\"b\":2}",
    b"[\"a\",]",
    b"[,\"a\"]",
    b"[*]",
    b"[1e1e1]",
];

#[test]
fn rejects_invalid_documents_like_serde_json() {
    for &doc in INVALID {
        assert!(
            serde_json::from_slice::<Value>(doc).is_err(),
            "serde_json accepts {doc:?}"
        );
        assert!(
            run(doc).1.is_some(),
            "accepted {:?}",
            String::from_utf8_lossy(doc)
        );
        assert_split_invariant(doc);
    }
}

/// What a reader that skips a value sees: consumed bytes, whether the
/// value closed, the error, and the tokenizer's state after (its offset
/// and what `finish` says).
type Skipped = (
    u64,
    bool,
    Option<JsonError>,
    u64,
    Result<Option<Token<'static>>, JsonError>,
);

/// `[doc]` read past its `[` and then skipped, the token loop's way.
fn skip_by_tokens(pieces: &[&[u8]]) -> Skipped {
    let mut tz: Tokenizer = Tokenizer::new();
    let (mut used, mut closed, mut error) = (0u64, false, None);
    'pieces: for piece in pieces {
        let mut rest = *piece;
        while !closed {
            match tz.next(rest) {
                Ok((n, tok)) => {
                    used += n as u64;
                    rest = &rest[n..];
                    match tok {
                        None => break,
                        Some(Token::ObjectEnd | Token::ArrayEnd | Token::NumberEnd)
                            if tz.depth() == 0 && used > 1 =>
                        {
                            closed = true
                        }
                        Some(_) => {}
                    }
                }
                Err(e) => {
                    error = Some(e);
                    break 'pieces;
                }
            }
        }
    }
    // After an error only the error (kind and offset) tells: how much
    // of the failing slice counts as consumed is not defined.
    let (used, offset) = match error {
        Some(_) => (u64::MAX, u64::MAX),
        None => (used, tz.offset()),
    };
    (used, closed, error, offset, tz.finish())
}

/// The same with `skip_to_depth` after the `[`.
fn skip_fast_way(pieces: &[&[u8]]) -> Skipped {
    let mut tz: Tokenizer = Tokenizer::new();
    let (mut used, mut closed, mut error) = (0u64, false, None);
    let mut started = false;
    for piece in pieces {
        let mut rest = *piece;
        if !started && !rest.is_empty() {
            let (n, tok) = tz.next(rest).unwrap();
            assert_eq!(tok, Some(Token::ArrayStart));
            used += n as u64;
            rest = &rest[n..];
            started = true;
        }
        if closed || !started {
            continue;
        }
        match tz.skip_to_depth(rest, 0) {
            Ok((n, c)) => {
                used += n as u64;
                closed = c;
                assert!(c || n == rest.len(), "stopped early");
            }
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    let (used, offset) = match error {
        Some(_) => (u64::MAX, u64::MAX),
        None => (used, tz.offset()),
    };
    (used, closed, error, offset, tz.finish())
}

fn assert_skip_agrees(doc: &[u8]) {
    let mut wrapped = b"[".to_vec();
    wrapped.extend_from_slice(doc);
    wrapped.extend_from_slice(b"]");
    let doc = &wrapped[..];
    let show = String::from_utf8_lossy(doc);
    assert_eq!(skip_fast_way(&[doc]), skip_by_tokens(&[doc]), "{show}");
    for i in 0..=doc.len() {
        let (a, b) = doc.split_at(i);
        assert_eq!(
            skip_fast_way(&[a, b]),
            skip_by_tokens(&[a, b]),
            "{show} at {i}"
        );
    }
    let bytes: Vec<&[u8]> = doc.chunks(1).collect();
    assert_eq!(
        skip_fast_way(&bytes),
        skip_by_tokens(&bytes),
        "{show} bytes"
    );
}

#[test]
fn skipping_a_value_is_the_token_loop() {
    for doc in valid_docs() {
        assert_skip_agrees(&doc);
    }
    for &doc in INVALID {
        assert_skip_agrees(doc);
    }
    for doc in [
        &b"{\"a\":[1,2.5e3,-0,{\"b\":\"x\\ny\\u00e9\\ud83d\\ude80\"}],\"c\":true}"[..],
        b"[[[[[[[[1]]]]]]]]",
        b"{\"k\" : \"\xc3\xa9\xe2\x82\xac\" ,\"t\":\"a\\tb\"}",
        b"[\"\xc3\"]",
        b"[1 , 2 ,3]",
        b"{\"a\":1}x",
        b"{\"a\":\"b\x01\"}",
        b"[truex]",
        b"[1e5x]",
    ] {
        assert_skip_agrees(doc);
    }
    // Nesting past the limit is the same error.
    let mut deep = b"[".repeat(40);
    deep.extend(b"]".repeat(40));
    assert_skip_agrees(&deep);
}

#[test]
fn work_is_linear() {
    // A long string fed in one piece comes back as one zero-copy run.
    let mut doc = vec![b'"'];
    doc.extend(core::iter::repeat_n(b'x', 10_000));
    doc.push(b'"');
    let mut tz: Tokenizer = Tokenizer::new();
    assert_eq!(tz.next(&doc), Ok((1, Some(Token::StrStart))));
    match tz.next(&doc[1..]) {
        Ok((10_000, Some(Token::Text(t)))) => assert_eq!(t.len(), 10_000),
        other => panic!("{other:?}"),
    }
}

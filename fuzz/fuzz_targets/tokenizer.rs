//! The JSON tokenizer on arbitrary bytes:
//! - the same tokens (fragments joined) and the same error for every split;
//! - on a document serde_json accepts, it accepts it too and the value
//!   rebuilt from its tokens equals serde_json's;
//! - where it accepts what serde_json rejects, the reason is one of the
//!   documented differences (lone surrogates become U+FFFD; numbers out of
//!   f64 range; serde_json's own limits).
#![no_main]

use agui_core::json::{JsonError, Token, Tokenizer};
use agui_fuzz::{seed_and_rest, split};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};

/// A token with its text fragments joined.
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Open(bool),
    Close,
    Key(String),
    Str(String),
    Num(String),
    Lit(Value),
}

fn tokens(pieces: &[&[u8]]) -> Result<Vec<Tok>, JsonError> {
    let mut tz: Tokenizer<64> = Tokenizer::new();
    let mut out = Vec::new();
    let mut text: Option<String> = None;
    let mut num: Option<String> = None;
    let mut push = |t: Token<'_>, out: &mut Vec<Tok>| match t {
        Token::ObjectStart => out.push(Tok::Open(true)),
        Token::ArrayStart => out.push(Tok::Open(false)),
        Token::ObjectEnd | Token::ArrayEnd => out.push(Tok::Close),
        Token::KeyStart | Token::StrStart => text = Some(String::new()),
        Token::Text(s) => text.as_mut().expect("text outside a string").push_str(s),
        Token::Char(c) => text.as_mut().expect("char outside a string").push(c),
        Token::KeyEnd => out.push(Tok::Key(text.take().expect("key end"))),
        Token::StrEnd => out.push(Tok::Str(text.take().expect("string end"))),
        Token::Number(s) => num.get_or_insert_with(String::new).push_str(s),
        Token::NumberEnd => out.push(Tok::Num(num.take().expect("number end"))),
        Token::True => out.push(Tok::Lit(Value::Bool(true))),
        Token::False => out.push(Tok::Lit(Value::Bool(false))),
        Token::Null => out.push(Tok::Lit(Value::Null)),
    };
    for piece in pieces {
        let mut rest = *piece;
        loop {
            let (used, tok) = tz.next(rest)?;
            assert!(used <= rest.len());
            rest = &rest[used..];
            match tok {
                Some(t) => push(t, &mut out),
                None => break,
            }
        }
        assert!(rest.is_empty());
    }
    while let Some(t) = tz.finish()? {
        push(t, &mut out);
    }
    assert!(tz.is_done());
    Ok(out)
}

/// Rebuilds a value from the joined tokens (later duplicate keys win, as in
/// serde_json).
fn value(toks: &mut std::slice::Iter<'_, Tok>) -> Option<Value> {
    Some(match toks.next()? {
        Tok::Open(true) => {
            let mut map = Map::new();
            loop {
                match toks.next()? {
                    Tok::Close => break Value::Object(map),
                    Tok::Key(k) => {
                        let v = value(toks)?;
                        map.insert(k.clone(), v);
                    }
                    _ => return None,
                }
            }
        }
        Tok::Open(false) => {
            let mut list = Vec::new();
            loop {
                let mut peek = toks.clone();
                if peek.next() == Some(&Tok::Close) {
                    toks.next();
                    break Value::Array(list);
                }
                list.push(value(toks)?);
            }
        }
        Tok::Str(s) => Value::String(s.clone()),
        Tok::Num(n) => serde_json::from_str(n).ok()?,
        Tok::Lit(v) => v.clone(),
        Tok::Close | Tok::Key(_) => return None,
    })
}

fn has_lone_surrogate_escape(input: &[u8]) -> bool {
    let text = String::from_utf8_lossy(input).to_ascii_lowercase();
    ["\\ud8", "\\ud9", "\\uda", "\\udb", "\\udc", "\\udd", "\\ude", "\\udf"]
        .iter()
        .any(|p| text.contains(p))
}

fuzz_target!(|data: &[u8]| {
    let (seed, input) = seed_and_rest(data);
    let whole = tokens(&[input]);
    let pieces = split(input, seed);
    assert_eq!(whole, tokens(&pieces), "split changed the tokens");
    match (serde_json::from_slice::<Value>(input), &whole) {
        (Ok(expected), Ok(toks)) => {
            let mut it = toks.iter();
            let got = value(&mut it).expect("tokens do not form a value");
            assert!(it.next().is_none(), "tokens after the value");
            assert_eq!(got, expected, "value differs from serde_json's");
        }
        (Ok(_), Err(e)) => {
            // serde_json nests 128 deep, the tokenizer 64.
            assert_eq!(e.kind, agui_core::json::JsonErrorKind::TooDeep, "serde_json accepts: {e:?}");
        }
        (Err(e), Ok(toks)) => {
            let why = e.to_string();
            let documented = (has_lone_surrogate_escape(input)
                && (why.contains("surrogate") || why.contains("hex escape") || why.contains("unicode code point")))
                || why.contains("number out of range")
                || why.contains("recursion limit");
            assert!(documented, "the tokenizer accepts what serde_json rejects ({why}): {toks:?}");
        }
        (Err(_), Err(_)) => {}
    }
});

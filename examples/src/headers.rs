//! The user's HTTP headers (`--header` of agui-chat and agui-gateway):
//! `'Name: value'`, or `@FILE` for a file of such lines, plus the lines of
//! the environment variable [`ENV`]. A secret given in a file or in the
//! environment does not show in `ps`.
//!
//! Headers are checked when the tool starts, not at the first run, and a
//! usage error names the header but never shows its value (it is often a
//! key).

use std::fs;

/// The environment variable whose lines (`Name: value`) are headers for
/// every request, before those of `--header`.
pub const ENV: &str = "AGUI_HEADERS";

/// One header.
#[derive(Clone, PartialEq, Eq)]
pub struct HttpHeader {
    /// Its name, as given.
    pub name: String,
    /// Its value, without the spaces around it.
    pub value: String,
}

// Hand-written: the value is often a secret and must not reach a log.
impl std::fmt::Debug for HttpHeader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HttpHeader({}: ***)", self.name)
    }
}

/// The headers of [`ENV`] (if set) and of each `--header` spec, in order.
///
/// # Errors
/// A usage error that says which spec or line is wrong, without its value.
pub fn collect(specs: &[String]) -> Result<Vec<HttpHeader>, String> {
    let mut headers = Vec::new();
    if let Some(text) = std::env::var_os(ENV) {
        let text = text
            .into_string()
            .map_err(|_| format!("${ENV} is not UTF-8"))?;
        lines(&text, &format!("${ENV}"), &mut headers)?;
    }
    for spec in specs {
        match spec.strip_prefix('@') {
            Some(file) => {
                let text = fs::read_to_string(file)
                    .map_err(|e| format!("--header @{file}: cannot read: {e}"))?;
                lines(&text, &format!("--header @{file}"), &mut headers)?;
            }
            None => headers.push(parse(spec).map_err(|why| format!("--header: {why}"))?),
        }
    }
    Ok(headers)
}

/// The non-empty lines of `text` (a file, the environment), each a header.
fn lines(text: &str, source: &str, out: &mut Vec<HttpHeader>) -> Result<(), String> {
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        out.push(parse(line).map_err(|why| format!("{source} line {}: {why}", n + 1))?);
    }
    Ok(())
}

/// `Name: value`, the name an HTTP token, the value free of control
/// characters (a CR or LF would start another header).
///
/// # Errors
/// What is wrong, naming the header but never showing its value.
pub fn parse(spec: &str) -> Result<HttpHeader, String> {
    let Some((name, value)) = spec.split_once(':') else {
        return Err(
            "expected 'Name: value' (no ':' found; the text is not shown, it may be a secret)"
                .to_owned(),
        );
    };
    let name = name.trim();
    if name.is_empty() || !name.bytes().all(is_token) {
        return Err(
            "expected 'Name: value' (the name is empty or not an HTTP token; the text is not shown, it may be a secret)"
                .to_owned(),
        );
    }
    let value = value.trim();
    if value.chars().any(|c| c.is_control() && c != '\t') {
        return Err(format!(
            "the value of '{name}' holds a control character (CR, LF, ...), which no header may"
        ));
    }
    Ok(HttpHeader {
        name: name.to_owned(),
        value: value.to_owned(),
    })
}

/// An HTTP token character (RFC 9110 `tchar`).
fn is_token(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_header_is_named_but_its_value_never_shown() {
        for bad in ["Authorization Bearer SECRET", "X Key: SECRET", ": SECRET"] {
            let e = parse(bad).unwrap_err();
            assert!(!e.contains("SECRET"), "{e}");
        }
        let e = parse("X-Key: SECRET\r\nHost: evil").unwrap_err();
        assert!(e.contains("'X-Key'") && !e.contains("SECRET"), "{e}");
        assert_eq!(
            parse(" X-Key :  v 1 ").unwrap(),
            HttpHeader {
                name: "X-Key".into(),
                value: "v 1".into()
            }
        );
        assert_eq!(
            format!("{:?}", parse("K: SECRET").unwrap()),
            "HttpHeader(K: ***)"
        );
    }
}

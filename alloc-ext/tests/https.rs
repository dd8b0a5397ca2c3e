//! `https://` (feature `https`): a TLS server on 127.0.0.1 with a
//! self-signed certificate made by the test. Trusted through
//! `HttpAgent::root_certs_pem`, the run folds live as over http; untrusted,
//! for another host name, or a server that does not speak TLS, it is one
//! clear `Tls` error and nothing folded before is lost.
#![allow(
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::unwrap_used
)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use agui_alloc::conversation::{Conversation, RunStatus};
use agui_alloc::event::MessageContent;
use agui_alloc::hooks::{Flow, HookView, Subscriber};
use agui_alloc::http::{HttpAgent, HttpErrorKind, RunObserver};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::{ServerConfig, ServerConnection, StreamOwned};
use serde_json::{json, Value};

/// A certificate made for this test, and its key.
struct Identity {
    cert_pem: String,
    cert_der: CertificateDer<'static>,
    key_der: Vec<u8>,
}

/// A self-signed certificate for `names` (DNS names or IP addresses).
fn identity(names: &[&str]) -> Identity {
    let names: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
    let made = rcgen::generate_simple_self_signed(names).unwrap();
    Identity {
        cert_pem: made.cert.pem(),
        cert_der: made.cert.der().clone(),
        key_der: made.signing_key.serialize_der(),
    }
}

type TlsStream = StreamOwned<ServerConnection, TcpStream>;

/// An HTTPS server on 127.0.0.1 (a free port) answering each request with
/// `handler`; stopped and joined when dropped, even if the test failed.
struct TlsServer {
    addr: SocketAddr,
    requests: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl TlsServer {
    fn start(
        identity: &Identity,
        handler: impl Fn(&mut TlsStream, &AtomicBool) + Send + Sync + 'static,
    ) -> Self {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(identity.key_der.clone()));
        let config = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(vec![identity.cert_der.clone()], key)
            .unwrap();
        let config = Arc::new(config);
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let handler = Arc::new(handler);
        let thread = {
            let (requests, stop) = (requests.clone(), stop.clone());
            thread::spawn(move || {
                let mut workers = Vec::new();
                for tcp in listener.incoming() {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let Ok(tcp) = tcp else { continue };
                    let (config, requests, stop, handler) = (
                        config.clone(),
                        requests.clone(),
                        stop.clone(),
                        handler.clone(),
                    );
                    workers.push(thread::spawn(move || {
                        tcp.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
                        let conn = ServerConnection::new(config).unwrap();
                        let mut tls = StreamOwned::new(conn, tcp);
                        // A client that refuses the certificate ends here.
                        let Some(request) = read_request(&mut tls) else {
                            return;
                        };
                        requests.lock().unwrap().push(request);
                        handler(&mut tls, &stop);
                        tls.conn.send_close_notify();
                        let _ = tls.flush();
                    }));
                }
                for w in workers {
                    let _ = w.join();
                }
            })
        };
        TlsServer {
            addr,
            requests,
            stop,
            thread: Some(thread),
        }
    }

    fn url(&self) -> String {
        format!("https://{}/", self.addr)
    }
}

impl Drop for TlsServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = TcpStream::connect(self.addr);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The request's head and body, as text.
fn read_request(tls: &mut TlsStream) -> Option<String> {
    let mut reader = BufReader::new(tls);
    let mut text = String::new();
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().ok()?;
            }
        }
        text.push_str(&line);
        if line == "\r\n" {
            break;
        }
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body).ok()?;
    text.push_str(&String::from_utf8(body).ok()?);
    Some(text)
}

fn send(tls: &mut TlsStream, text: &str) -> bool {
    tls.write_all(text.as_bytes())
        .and_then(|()| tls.flush())
        .is_ok()
}

const HEAD: &str =
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";

fn frame(event: &Value) -> String {
    format!("data: {event}\n\n")
}

fn started() -> Value {
    json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"})
}

fn chunk(delta: &str) -> Value {
    json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "role": "assistant", "delta": delta})
}

fn finished() -> Value {
    json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"})
}

fn conversation() -> Conversation {
    let mut conv = Conversation::new("t");
    conv.add_user_message("hello").unwrap();
    conv
}

fn answer(conv: &Conversation) -> Option<String> {
    conv.messages()
        .iter()
        .find(|m| m.id() == "m1")
        .and_then(|m| m.text().map(str::to_owned))
}

/// Tells the server each delta as the client folds it.
struct Deltas(mpsc::Sender<String>);

impl Subscriber for Deltas {
    fn on_text_message_content(
        &mut self,
        event: &MessageContent,
        _: &str,
        _: &mut HookView<'_>,
    ) -> Flow {
        let _ = self.0.send(event.delta.clone());
        Flow::Continue
    }
}

impl RunObserver for Deltas {}

#[test]
fn a_trusted_self_signed_agent_streams_live_over_tls() {
    let id = identity(&["localhost", "127.0.0.1"]);
    // The server sends its first delta, then waits until the client has
    // folded it: the TLS layer must hand bytes on as they come.
    let (shown_tx, shown_rx) = mpsc::channel::<String>();
    let shown_rx = Mutex::new(shown_rx);
    let server = TlsServer::start(&id, move |tls, _stop| {
        send(
            tls,
            &(HEAD.to_owned() + &frame(&started()) + &frame(&chunk("Hel"))),
        );
        let live = shown_rx
            .lock()
            .unwrap()
            .recv_timeout(Duration::from_secs(10));
        let next = if live.is_ok() { "lo" } else { "lo (not live)" };
        send(tls, &(frame(&chunk(next)) + &frame(&finished())));
    });
    let agent = HttpAgent::new(server.url())
        .root_certs_pem(id.cert_pem.as_bytes())
        .unwrap()
        .header("Authorization", "Bearer k");
    let mut conv = conversation();
    let report = agent.run(&mut conv, &mut Deltas(shown_tx)).unwrap();
    assert!(report.status.is_finished(), "{}", report.status);
    assert_eq!(answer(&conv).as_deref(), Some("Hello"));
    let request = server.requests.lock().unwrap()[0].clone();
    assert!(request.starts_with("POST / HTTP/1.1\r\n"), "{request}");
    assert!(
        request
            .to_ascii_lowercase()
            .contains("\r\nauthorization: bearer k\r\n"),
        "{request}"
    );
    let body: Value = serde_json::from_str(request.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    assert_eq!(body["messages"][0]["content"], "hello");
}

#[test]
fn the_host_name_works_as_well_as_the_address() {
    let id = identity(&["localhost", "127.0.0.1"]);
    let server = TlsServer::start(&id, |tls, _| {
        let events = frame(&started()) + &frame(&chunk("hi")) + &frame(&finished());
        send(tls, &(HEAD.to_owned() + &events));
    });
    let agent = HttpAgent::new(format!("https://localhost:{}/", server.addr.port()))
        .root_certs_pem(id.cert_pem.as_bytes())
        .unwrap();
    let mut conv = conversation();
    let report = agent.run(&mut conv, &mut ()).unwrap();
    assert!(report.status.is_finished(), "{}", report.status);
    assert_eq!(answer(&conv).as_deref(), Some("hi"));
}

#[test]
fn an_untrusted_certificate_is_a_tls_error_and_nothing_is_lost() {
    let id = identity(&["localhost", "127.0.0.1"]);
    let server = TlsServer::start(&id, |tls, _| {
        send(
            tls,
            &(HEAD.to_owned() + &frame(&started()) + &frame(&finished())),
        );
    });
    let mut conv = conversation();
    // The built-in roots do not know the test's certificate.
    let err = HttpAgent::new(server.url())
        .run(&mut conv, &mut ())
        .unwrap_err();
    assert_eq!(err.kind, HttpErrorKind::Tls, "{err}");
    assert_eq!(
        err.to_string(),
        format!(
            "TLS: the certificate of '{}' is not trusted (UnknownIssuer)",
            server.url()
        )
    );
    assert!(
        server.requests.lock().unwrap().is_empty(),
        "nothing was sent"
    );
    assert!(!conv.is_running());
    assert_eq!(conv.messages().len(), 1);
    assert!(matches!(
        conv.last_run().unwrap().status,
        RunStatus::Aborted(_)
    ));

    // Trusting another certificate is no better.
    let other = identity(&["127.0.0.1"]);
    let err = HttpAgent::new(server.url())
        .root_certs_pem(other.cert_pem.as_bytes())
        .unwrap()
        .run(&mut conv, &mut ())
        .unwrap_err();
    assert_eq!(err.kind, HttpErrorKind::Tls, "{err}");
    assert!(err.to_string().contains("is not trusted"), "{err}");
}

#[test]
fn a_certificate_for_another_host_is_refused() {
    let id = identity(&["agent.example"]);
    let server = TlsServer::start(&id, |tls, _| {
        send(
            tls,
            &(HEAD.to_owned() + &frame(&started()) + &frame(&finished())),
        );
    });
    let err = HttpAgent::new(server.url())
        .root_certs_pem(id.cert_pem.as_bytes())
        .unwrap()
        .run(&mut conversation(), &mut ())
        .unwrap_err();
    assert_eq!(err.kind, HttpErrorKind::Tls, "{err}");
    assert!(
        err.to_string()
            .contains("(certificate not valid for name \"127.0.0.1\"; certificate is only valid for DnsName(\"agent.example\"))"),
        "{err}"
    );
}

/// A plain HTTP server that answers anything with a 400, as a web server
/// does to a TLS greeting; stopped and joined when dropped.
struct PlainServer {
    addr: SocketAddr,
    thread: Option<JoinHandle<()>>,
}

impl PlainServer {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let thread = thread::spawn(move || {
            if let Ok((mut tcp, _)) = listener.accept() {
                let _ = tcp.write_all(
                    b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                );
            }
        });
        PlainServer {
            addr,
            thread: Some(thread),
        }
    }
}

impl Drop for PlainServer {
    fn drop(&mut self) {
        // Wakes the accept if the client never came.
        let _ = TcpStream::connect(self.addr);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[test]
fn https_to_a_plain_http_server_says_so() {
    let plain = PlainServer::start();
    let url = format!("https://{}/", plain.addr);
    let mut conv = conversation();
    let err = HttpAgent::new(url.clone())
        .run(&mut conv, &mut ())
        .unwrap_err();
    assert_eq!(err.kind, HttpErrorKind::Tls, "{err}");
    assert!(
        err.to_string()
            .starts_with(&format!("TLS: '{url}' does not answer in TLS (")),
        "{err}"
    );
    assert!(
        err.to_string().ends_with("): is it an http:// server?"),
        "{err}"
    );
    assert_eq!(conv.messages().len(), 1);
}

#[test]
fn root_certificates_that_cannot_be_used_are_refused() {
    let id = identity(&["127.0.0.1"]);
    let key_only = format!(
        "-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n",
        "MC4CAQAwBQYDK2VwBCIEIA=="
    );
    for (pem, says) in [
        (
            String::new(),
            "no certificate (-----BEGIN CERTIFICATE-----)",
        ),
        ("hello\n".to_owned(), "no certificate"),
        (key_only, "no certificate"),
        (
            "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n".to_owned(),
            "root certificate 1 is not usable",
        ),
        (
            format!("{}-----BEGIN CERTIFICATE-----\nAAAA\n", id.cert_pem),
            "not valid PEM",
        ),
    ] {
        let err = HttpAgent::new("https://127.0.0.1:9/")
            .root_certs_pem(pem.as_bytes())
            .unwrap_err();
        assert_eq!(err.kind, HttpErrorKind::Tls, "{err}");
        assert!(err.to_string().contains(says), "{says:?} not in {err}");
    }
    // A key next to the certificate (a server's bundle) is fine.
    let bundle = format!(
        "{}{}",
        id.cert_pem,
        "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIA==\n-----END PRIVATE KEY-----\n"
    );
    assert!(HttpAgent::new("https://127.0.0.1:9/")
        .root_certs_pem(bundle.as_bytes())
        .is_ok());
}

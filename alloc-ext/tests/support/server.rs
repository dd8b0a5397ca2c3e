//! A tiny HTTP/1.1 server for tests: listens on 127.0.0.1 on a free port,
//! answers each connection with a handler, and stops (its thread joined)
//! when dropped, even if the test failed.
#![allow(dead_code, clippy::unwrap_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// One request as the server read it.
#[derive(Debug, Clone, Default)]
pub struct Request {
    pub request_line: String,
    /// Header names in lower case.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Tells a handler that the test is over: sleeping handlers end.
#[derive(Clone, Default)]
pub struct Stop(Arc<AtomicBool>);

impl Stop {
    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// Sleeps `d`, or less if the test ends; false when it ended.
    pub fn sleep(&self, d: Duration) -> bool {
        let end = Instant::now() + d;
        while Instant::now() < end {
            if self.is_set() {
                return false;
            }
            thread::sleep(Duration::from_millis(5).min(end - Instant::now()));
        }
        !self.is_set()
    }
}

pub type Handler = dyn Fn(&Request, &mut TcpStream, &Stop) + Send + Sync;

pub struct Server {
    pub addr: SocketAddr,
    pub requests: Arc<Mutex<Vec<Request>>>,
    stop: Stop,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    pub fn start(
        handler: impl Fn(&Request, &mut TcpStream, &Stop) + Send + Sync + 'static,
    ) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Stop::default();
        let handler: Arc<Handler> = Arc::new(handler);
        let thread = {
            let (requests, stop) = (requests.clone(), stop.clone());
            thread::spawn(move || {
                let mut workers = Vec::new();
                for conn in listener.incoming() {
                    if stop.is_set() {
                        break;
                    }
                    let Ok(mut conn) = conn else { continue };
                    let (requests, stop, handler) =
                        (requests.clone(), stop.clone(), handler.clone());
                    workers.push(thread::spawn(move || {
                        let Some(request) = read_request(&mut conn) else {
                            return;
                        };
                        requests.lock().unwrap().push(request.clone());
                        handler(&request, &mut conn, &stop);
                    }));
                }
                for w in workers {
                    let _ = w.join();
                }
            })
        };
        Server {
            addr,
            requests,
            stop,
            thread: Some(thread),
        }
    }

    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.0.store(true, Ordering::Relaxed);
        // Wake the accept loop.
        let _ = TcpStream::connect(self.addr);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn read_request(conn: &mut TcpStream) -> Option<Request> {
    conn.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let mut reader = BufReader::new(conn.try_clone().ok()?);
    let mut request = Request::default();
    reader.read_line(&mut request.request_line).ok()?;
    if request.request_line.is_empty() {
        return None;
    }
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).ok()?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':')?;
        request
            .headers
            .push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let len: usize = request
        .header("content-length")
        .unwrap_or("0")
        .parse()
        .ok()?;
    let mut body = vec![0u8; len];
    reader.read_exact(&mut body).ok()?;
    request.body = String::from_utf8(body).ok()?;
    Some(request)
}

/// Response head of an event stream whose body ends when the server closes.
pub fn sse_head(content_type: &str) -> String {
    format!("HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n")
}

/// Writes `bytes` and flushes; false if the client went away.
pub fn send(conn: &mut TcpStream, bytes: &[u8]) -> bool {
    conn.write_all(bytes).and_then(|()| conn.flush()).is_ok()
}

/// One SSE frame for `event`.
pub fn frame(event: &serde_json::Value) -> String {
    format!("data: {event}\n\n")
}

/// Answers with a whole event stream at once, then closes.
pub fn answer_with(
    events: Vec<serde_json::Value>,
) -> impl Fn(&Request, &mut TcpStream, &Stop) + Send + Sync {
    move |_req, conn, _stop| {
        let mut out = sse_head("text/event-stream");
        for ev in &events {
            out.push_str(&frame(ev));
        }
        send(conn, out.as_bytes());
    }
}

/// One protobuf field `n` of wire type 2 (bytes) holding `bytes` (under
/// 128 bytes: a one-byte length).
pub fn pb_field(n: u8, bytes: &[u8]) -> Vec<u8> {
    let mut out = vec![n << 3 | 2, u8::try_from(bytes.len()).unwrap()];
    out.extend_from_slice(bytes);
    out
}

/// One length-prefixed protobuf `Event` frame: envelope field `arm`, its
/// `BaseEvent.type` `ty`, then string fields (2, 3, ...) in order.
pub fn pb_event(arm: u8, ty: u8, strings: &[&str]) -> Vec<u8> {
    let mut body = pb_field(1, &[0x08, ty]);
    for (i, s) in strings.iter().enumerate() {
        body.extend(pb_field(u8::try_from(i + 2).unwrap(), s.as_bytes()));
    }
    let event = pb_field(arm, &body);
    let mut out = u32::try_from(event.len()).unwrap().to_be_bytes().to_vec();
    out.extend(event);
    out
}

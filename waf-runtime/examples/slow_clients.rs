//! Slow clients against the waf proxy on loopback, for `benches/slow-clients.sh`.
//!
//! Opens COUNT connections of each shape, each stalling the proxy in one stage (docs/proxy-front-line.md, "Time:
//! slow clients"), and records when the proxy closed each, counted from the moment the stage's clock started.
//! Prints one line per shape: how many, how many were closed within BOUND + 1 s, the slowest close, and what the
//! proxy answered. Exits 1 if any connection outlived BOUND + 1 s.
//!
//! Cheap on purpose, so a run measures the proxy rather than its load: one thread, one task per connection that
//! sleeps in the kernel until the proxy answers or closes, and the trickled header lines written by one ticker per
//! 50 ms for every connection due (a write each, no task woken). The Python generator it replaces spent 40 s of
//! CPU in a 31 s run.
//!
//! usage: [SHAPES=silent,trickle] cargo run --release -p waf-runtime --example slow_clients -- HOST:PORT COUNT BOUND_SECONDS
use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::rc::Rc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::net::tcp::OwnedWriteHalf;
use tokio::sync::Semaphore;
use tokio::time::Instant;

/// How long a trickling client waits between header lines: well under any bound, so only the head's total time
/// can close it.
const TRICKLE_EVERY: Duration = Duration::from_millis(500);
/// Connections being opened at once: a crowd arriving, not 10,000 SYNs in one burst (the listen backlog).
const OPENING: usize = 200;

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Shape {
    Silent,
    RequestLine,
    Trickle,
    IdleKeepAlive,
    SlowBody,
}

impl Shape {
    const ALL: [Shape; 5] = [
        Shape::Silent,
        Shape::RequestLine,
        Shape::Trickle,
        Shape::IdleKeepAlive,
        Shape::SlowBody,
    ];

    fn name(self) -> &'static str {
        match self {
            Shape::Silent => "silent",
            Shape::RequestLine => "request-line",
            Shape::Trickle => "trickle",
            Shape::IdleKeepAlive => "idle-keepalive",
            Shape::SlowBody => "slow-body",
        }
    }
}

/// How one connection ended.
enum Outcome {
    /// Closed this long after its stage's clock started, having answered this status line (or nothing).
    Closed(Duration, String),
    StillOpen,
    Error(String),
}

/// Counts the connections opened (their stage started, or they failed), and says when all are.
struct Opened {
    since: Instant,
    of: usize,
    so_far: Cell<usize>,
}

impl Opened {
    fn one(&self) {
        self.so_far.set(self.so_far.get() + 1);
        if self.so_far.get() == self.of {
            println!(
                "all {} connections opened {:.2} s after the first",
                self.of,
                self.since.elapsed().as_secs_f64()
            );
        }
    }
}

/// The writing halves of the trickling connections, written to by the ticker.
type Trickles = Rc<RefCell<Vec<(OwnedWriteHalf, u32)>>>;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let usage = || {
        eprintln!("usage: slow_clients HOST:PORT COUNT BOUND_SECONDS");
        ExitCode::from(2)
    };
    let [_, addr, count, bound] = &args[..] else {
        return usage();
    };
    let (Ok(addr), Ok(count), Ok(bound)) = (
        addr.parse::<SocketAddr>(),
        count.parse::<usize>(),
        bound.parse::<f64>(),
    ) else {
        return usage();
    };
    let bound = Duration::from_secs_f64(bound);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let local = tokio::task::LocalSet::new();
    local.block_on(&runtime, run(addr, count, bound))
}

async fn run(addr: SocketAddr, count: usize, bound: Duration) -> ExitCode {
    // SHAPES (names, comma-separated) narrows the run to some shapes, to tell what each costs.
    let shapes: Vec<Shape> = match std::env::var("SHAPES") {
        Ok(names) => Shape::ALL
            .into_iter()
            .filter(|s| names.split(',').any(|n| n.trim() == s.name()))
            .collect(),
        Err(_) => Shape::ALL.to_vec(),
    };
    let opening = Rc::new(Semaphore::new(OPENING));
    let trickles: Trickles = Rc::default();
    let ticker = tokio::task::spawn_local(tick(trickles.clone()));
    let opened = Rc::new(Opened {
        since: Instant::now(),
        of: count * shapes.len(),
        so_far: Cell::new(0),
    });
    let mut tasks = Vec::new();
    for &shape in &shapes {
        for _ in 0..count {
            let (opening, trickles, opened) = (opening.clone(), trickles.clone(), opened.clone());
            tasks.push((
                shape,
                tokio::task::spawn_local(one(shape, addr, bound, opening, trickles, opened)),
            ));
        }
    }
    let mut late = 0;
    for &shape in &shapes {
        let (mut in_time, mut open, mut errors, mut slowest) = (0, 0, Vec::new(), Duration::ZERO);
        let mut answers = BTreeSet::new();
        for (_, task) in tasks.iter_mut().filter(|(s, _)| *s == shape) {
            match task.await.unwrap_or_else(|e| Outcome::Error(e.to_string())) {
                Outcome::Closed(after, answer) => {
                    if after <= bound + Duration::from_secs(1) {
                        in_time += 1;
                    }
                    slowest = slowest.max(after);
                    answers.insert(answer);
                }
                Outcome::StillOpen => open += 1,
                Outcome::Error(e) => errors.push(e),
            }
        }
        late += count - in_time;
        println!(
            "{:15} {count:6} connections, {in_time:6} closed within {:.0} s, {open} still open, {} client errors, \
             slowest close {:.2} s, answers {answers:?}",
            shape.name(),
            (bound + Duration::from_secs(1)).as_secs_f64(),
            errors.len(),
            slowest.as_secs_f64()
        );
        for e in errors.iter().take(3) {
            println!("  error: {e}");
        }
    }
    ticker.abort();
    if late == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Every 50 ms, writes the next header line to each trickling connection whose turn it is (every
/// `TRICKLE_EVERY`, spread over the ticks by position); drops those the proxy closed.
async fn tick(trickles: Trickles) {
    const TICK: Duration = Duration::from_millis(50);
    let ticks_per_line = (TRICKLE_EVERY.as_millis() / TICK.as_millis()) as usize;
    let mut every = tokio::time::interval(TICK);
    let mut n = 0usize;
    loop {
        every.tick().await;
        let mut trickles = trickles.borrow_mut();
        let mut i = 0;
        trickles.retain_mut(|(write, line)| {
            i += 1;
            if i % ticks_per_line != n % ticks_per_line {
                return true;
            }
            let text = format!("x-{line}: {line}\r\n");
            *line += 1;
            // A full socket buffer cannot happen at a line per 0.5 s; an error means the proxy closed it.
            write.try_write(text.as_bytes()).is_ok()
        });
        n += 1;
    }
}

async fn one(
    shape: Shape,
    addr: SocketAddr,
    bound: Duration,
    opening: Rc<Semaphore>,
    trickles: Trickles,
    opened: Rc<Opened>,
) -> Outcome {
    let permit = opening.acquire().await.expect("never closed");
    let mut stream = match TcpStream::connect(addr).await {
        Ok(stream) => stream,
        Err(e) => return Outcome::Error(format!("connect: {e}")),
    };
    let started = match shape {
        Shape::Silent => Ok(Instant::now()),
        Shape::RequestLine => send(&mut stream, b"GET / HTTP/1.1\r\n").await,
        Shape::Trickle => send(&mut stream, b"GET / HTTP/1.1\r\nHost: a\r\n").await,
        Shape::IdleKeepAlive => one_request(&mut stream).await,
        Shape::SlowBody => {
            send(
                &mut stream,
                b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\nabc",
            )
            .await
        }
    };
    drop(permit);
    opened.one();
    let started = match started {
        Ok(started) => started,
        Err(e) => return Outcome::Error(e),
    };
    let (mut read, write) = stream.into_split();
    // The writing half stays open (dropping it would shut it down, which reads as the client leaving): the
    // ticker's for a trickling connection, held here for the others.
    let _held = if shape == Shape::Trickle {
        trickles.borrow_mut().push((write, 0));
        None
    } else {
        Some(write)
    };
    let mut answer = Vec::new();
    let limit = started + bound + Duration::from_secs(5);
    let mut buf = [0u8; 1024];
    loop {
        match tokio::time::timeout_at(limit, read.read(&mut buf)).await {
            Err(_) => return Outcome::StillOpen,
            Ok(Ok(0) | Err(_)) => break,
            Ok(Ok(n)) => answer.extend_from_slice(&buf[..n]),
        }
    }
    let after = started.elapsed();
    let status =
        String::from_utf8_lossy(answer.split(|b| *b == b'\r').next().unwrap_or(b"")).into_owned();
    let status = match (status.is_empty(), shape) {
        (true, Shape::IdleKeepAlive) => "(nothing more)".to_string(),
        (true, _) => "(nothing)".to_string(),
        (false, _) => status,
    };
    Outcome::Closed(after, status)
}

/// Writes `bytes`; the stage's clock starts when they are sent.
async fn send(stream: &mut TcpStream, bytes: &[u8]) -> Result<Instant, String> {
    stream
        .write_all(bytes)
        .await
        .map_err(|e| format!("send: {e}"))?;
    Ok(Instant::now())
}

/// Sends one request and reads its whole answer (its `Content-Length`); the keep-alive clock starts then.
async fn one_request(stream: &mut TcpStream) -> Result<Instant, String> {
    send(stream, b"GET / HTTP/1.1\r\nHost: a\r\n\r\n").await?;
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = stream
            .read(&mut buf)
            .await
            .map_err(|e| format!("answer: {e}"))?;
        if n == 0 {
            return Err("closed before the answer ended".into());
        }
        got.extend_from_slice(&buf[..n]);
        let Some(end) = got.windows(4).position(|w| w == b"\r\n\r\n") else {
            continue;
        };
        let head = String::from_utf8_lossy(&got[..end]).to_ascii_lowercase();
        let length: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0);
        if got.len() >= end + 4 + length {
            return Ok(Instant::now());
        }
    }
}

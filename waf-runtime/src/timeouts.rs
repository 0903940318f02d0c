//! How long a client connection may wait at each stage before the proxy closes it, and the clock that holds a
//! connection to them.
//!
//! A connection that never finishes what it started costs a socket and a task until the client leaves: the
//! slowloris shape. So every wait the proxy does on a client is bounded, each by its own `server.*` setting:
//!
//! | stage | from | to | default | nginx |
//! |---|---|---|---|---|
//! | `first_byte` | accept (over TLS: again from the end of the handshake) | the first byte | 30 s | `client_header_timeout` 60 s, which covers this and the head together |
//! | `tls_handshake` | accept | handshake done | 60 s | `ssl_handshake_timeout` 60 s |
//! | `head` | a head's first byte | its blank line, over any number of reads | 30 s | `client_header_timeout` |
//! | `body` | a read of the body | the next | 30 s | `client_body_timeout` 60 s |
//! | `keepalive` | the end of a response | the next head's first byte | 75 s | `keepalive_timeout` 75 s |
//! | `http2_idle` | the end of the last HTTP/2 request | the next one | `keepalive` | `keepalive_timeout` (since 1.19.7) |
//! | `http2_settings` | accept (or the end of the TLS handshake) | the client's ack of the proxy's SETTINGS | `head` | none |
//! | `send` | a write that finds no room (the client reads nothing); HTTP/2: an answer held for the client's flow-control window | the next write that makes progress | 60 s | `send_timeout` 60 s |
//!
//! The head guard (`head_guard.rs`) holds HTTP/1 heads and bodies and HTTP/2 connections to them (an HTTP/2
//! answer held for the window included, `InFlight::awaits_client`); the TLS stages are in `tls::handshake`, the
//! writes in `send_timeout.rs`, an HTTP/2 request body streamed upstream in `body_timeout.rs`. hyper's own
//! header timer is off: it starts only once hyper reads a head, and the guard hands hyper nothing of a head until
//! it is complete, so a client that never finished one was never timed.
use crate::metrics::Metrics;
use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::time::{Instant, Sleep};

/// The bound of each stage (`server.first_byte_timeout_sec` and its siblings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    pub first_byte: Duration,
    pub tls_handshake: Duration,
    pub head: Duration,
    pub body: Duration,
    pub keepalive: Duration,
    pub send: Duration,
}

/// A wait on the client that has a bound, named as `waf_connection_timeouts_total{stage}` counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    FirstByte,
    TlsHandshake,
    Head,
    Body,
    KeepAlive,
    Http2Idle,
    Http2Settings,
    Send,
}

impl Stage {
    /// Every stage, in the order declared (`Metrics` finds a stage's counter at `stage as usize`).
    pub const ALL: [Stage; 8] = [
        Stage::FirstByte,
        Stage::TlsHandshake,
        Stage::Head,
        Stage::Body,
        Stage::KeepAlive,
        Stage::Http2Idle,
        Stage::Http2Settings,
        Stage::Send,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Stage::FirstByte => "first_byte",
            Stage::TlsHandshake => "tls_handshake",
            Stage::Head => "head",
            Stage::Body => "body",
            Stage::KeepAlive => "keepalive",
            Stage::Http2Idle => "http2_idle",
            Stage::Http2Settings => "http2_settings",
            Stage::Send => "send",
        }
    }
}

/// What a connection is waiting for, as the guard sees it.
#[derive(Debug, Clone, Copy)]
pub enum Wait {
    /// A bounded wait: over at this instant.
    Until(Stage, Instant),
    /// A request is in flight: the client owes nothing (the upstream's own timeouts bound the wait), but the
    /// clock looks again every `keepalive`, in case the end of the request is not followed by a read.
    Busy,
    /// Nothing is bounded here (a relayed upgraded connection, a refused head being answered).
    Unbounded,
}

/// One connection's clock: when it started, and the timer of its current wait.
pub struct Clock {
    pub timeouts: Timeouts,
    pub started: Instant,
    peer: IpAddr,
    metrics: &'static Metrics,
    /// Armed for the current wait's deadline; made on the first wait, then reset.
    sleep: Option<Pin<Box<Sleep>>>,
}

impl Clock {
    pub fn new(timeouts: Timeouts, peer: IpAddr, metrics: &'static Metrics) -> Clock {
        Clock {
            timeouts,
            started: Instant::now(),
            peer: peer.to_canonical(),
            metrics,
            sleep: None,
        }
    }

    /// The stage whose bound `wait` is past, if it is; otherwise arranges for `cx` to be woken when it may be.
    pub fn expired(&mut self, cx: &mut Context<'_>, wait: Wait) -> Option<Stage> {
        let now = Instant::now();
        let (stage, at) = match wait {
            Wait::Unbounded => return None,
            Wait::Until(stage, at) if at <= now => return Some(stage),
            Wait::Until(stage, at) => (Some(stage), at),
            // Keeps an armed look-again in the future, so a busy connection does not reset its timer per poll.
            Wait::Busy => match &self.sleep {
                Some(sleep) if sleep.deadline() > now => (None, sleep.deadline()),
                _ => (None, now + self.timeouts.keepalive),
            },
        };
        let sleep = match &mut self.sleep {
            Some(sleep) => {
                if sleep.deadline() != at {
                    sleep.as_mut().reset(at);
                }
                sleep
            }
            None => self.sleep.insert(Box::pin(tokio::time::sleep_until(at))),
        };
        match sleep.as_mut().poll(cx) {
            Poll::Pending => None,
            // The deadline passed between the look at the time and the poll.
            Poll::Ready(()) => match stage {
                Some(stage) => Some(stage),
                None => {
                    sleep
                        .as_mut()
                        .reset(Instant::now() + self.timeouts.keepalive);
                    let _ = sleep.as_mut().poll(cx);
                    None
                }
            },
        }
    }

    /// Counts and logs a connection cut off at `stage`; `outcome` says what the client got.
    pub fn timed_out(&self, stage: Stage, outcome: &str) {
        timed_out(self.metrics, self.peer, stage, self.bound(stage), outcome);
    }

    fn bound(&self, stage: Stage) -> Duration {
        let t = &self.timeouts;
        match stage {
            Stage::FirstByte => t.first_byte,
            Stage::TlsHandshake => t.tls_handshake,
            Stage::Head | Stage::Http2Settings => t.head,
            Stage::Body => t.body,
            Stage::KeepAlive | Stage::Http2Idle => t.keepalive,
            Stage::Send => t.send,
        }
    }
}

/// Counts and logs (at debug: a timed-out client is routine, and a flood of them must not flood the log) a
/// connection from `peer` cut off at `stage` after `bound`.
pub fn timed_out(metrics: &Metrics, peer: IpAddr, stage: Stage, bound: Duration, outcome: &str) {
    metrics.connection_timed_out(stage);
    tracing::debug!(
        "connection from {peer}: {} timeout ({bound:?}): {outcome}",
        stage.name()
    );
}

/// The clock of a wait that restarts with every bit of progress (a write that finds room, a body's next bytes):
/// each wait is bounded on its own, however long the whole takes.
#[derive(Default)]
pub struct Stall {
    /// Armed for the current wait's end; made on the first wait, then reset, so a stream that never waits
    /// allocates nothing.
    sleep: Option<Pin<Box<Sleep>>>,
    waiting: bool,
}

impl Stall {
    /// The stream moved on: the next wait starts its own clock.
    pub fn progressed(&mut self) {
        self.waiting = false;
    }

    /// The stream is waiting: whether it has waited `bound` since the wait began; otherwise `cx` is woken when
    /// it will have.
    pub fn over(&mut self, cx: &mut Context<'_>, bound: Duration) -> bool {
        let at = Instant::now() + bound;
        let sleep = match &mut self.sleep {
            Some(sleep) => {
                if !self.waiting {
                    sleep.as_mut().reset(at);
                }
                sleep
            }
            None => self.sleep.insert(Box::pin(tokio::time::sleep_until(at))),
        };
        self.waiting = true;
        sleep.as_mut().poll(cx).is_ready()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_are_listed_in_declaration_order() {
        for (i, stage) in Stage::ALL.into_iter().enumerate() {
            assert_eq!(stage as usize, i, "{}", stage.name());
        }
    }
}

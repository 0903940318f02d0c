//! The `oauth_tokens` rows of issued tokens, written in batches. Every issued token has a row (revocation,
//! introspection and replay detection read it), and under load one transaction per row is what limits the token
//! endpoint: SQLite serializes writers, PostgreSQL pays a commit each. So one writer task takes every row waiting,
//! writes them in one transaction, and only then answers each request: a token is never handed out before its
//! row is committed, and nothing is lost.

use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};

use crate::store::{Store, StoreError, TokenRecord};

/// Rows per transaction at most: enough to absorb a burst of every connection at once, small enough that a
/// transaction stays short and its waiters answer promptly.
const MAX_BATCH: usize = 64;
/// Rows waiting beyond one batch: when full, requests wait for room (backpressure) instead of growing memory.
const QUEUE: usize = 1024;

type Reply = oneshot::Sender<Result<(), StoreError>>;

pub struct TokenWriter {
    queue: mpsc::Sender<(TokenRecord, Reply)>,
}

impl TokenWriter {
    /// Starts the writer task on `store`; call inside the runtime.
    pub fn start(store: Arc<dyn Store>) -> Self {
        let (queue, rows) = mpsc::channel(QUEUE);
        tokio::spawn(write_batches(store, rows));
        TokenWriter { queue }
    }

    /// Writes `record`, returning once its transaction has committed.
    pub async fn write(&self, record: TokenRecord) -> Result<(), StoreError> {
        let (reply, committed) = oneshot::channel();
        let stopped = || StoreError::Setup("the token writer has stopped".into());
        self.queue
            .send((record, reply))
            .await
            .map_err(|_| stopped())?;
        committed.await.map_err(|_| stopped())?
    }
}

async fn write_batches(store: Arc<dyn Store>, mut rows: mpsc::Receiver<(TokenRecord, Reply)>) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    while rows.recv_many(&mut batch, MAX_BATCH).await > 0 {
        let (records, replies): (Vec<TokenRecord>, Vec<Reply>) = batch.drain(..).unzip();
        match store.insert_tokens(&records).await {
            Ok(()) => {
                for reply in replies {
                    // A requester that went away (client disconnected) needs no answer.
                    let _ = reply.send(Ok(()));
                }
            }
            Err(error) if replies.len() == 1 => {
                if let Some(reply) = replies.into_iter().next() {
                    let _ = reply.send(Err(error));
                }
            }
            Err(error) => {
                // One bad row must not fail its neighbours: each row alone, each request its own answer.
                tracing::warn!(%error, rows = records.len(), "token batch failed, writing its rows one by one");
                for (record, reply) in records.iter().zip(replies) {
                    let _ = reply.send(store.insert_tokens(std::slice::from_ref(record)).await);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::StoreConfig;

    fn record(jti: &str) -> TokenRecord {
        let now = chrono::Utc::now();
        TokenRecord {
            id: crate::ids::new_id(),
            jti: jti.into(),
            token_type: "access".into(),
            issued_at: now,
            expires_at: now,
            ..TokenRecord::default()
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn every_row_commits_and_a_bad_row_fails_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("auth.sqlite3");
        let store = crate::store::open(&StoreConfig::Sqlite { path })
            .await
            .unwrap();
        store.insert_token(&record("taken")).await.unwrap();
        let writer = Arc::new(TokenWriter::start(store.clone()));
        let mut writes = tokio::task::JoinSet::new();
        for i in 0..200 {
            // Row 77 repeats a jti already stored: it, and only it, must fail.
            let jti = if i == 77 {
                "taken".to_string()
            } else {
                format!("jti-{i}")
            };
            let writer = writer.clone();
            writes.spawn(async move { (jti.clone(), writer.write(record(&jti)).await) });
        }
        let mut failed = Vec::new();
        while let Some(done) = writes.join_next().await {
            let (jti, result) = done.unwrap();
            match result {
                Ok(()) => assert!(
                    store.token_by_jti(&jti).await.unwrap().is_some(),
                    "{jti} answered before its row was committed"
                ),
                Err(_) => failed.push(jti),
            }
        }
        assert_eq!(failed, ["taken"]);
    }
}

//! Values built from files that are re-read while the server runs: TLS
//! certificates and token lists. The files are polled for changed contents
//! every `interval` and re-read at once on SIGHUP; a file that fails to load
//! is logged and the previous value stays in use, so a half-written secret
//! never takes a server down. Users of the value take the current one per
//! connection or per request, so nothing in flight is dropped by a reload.

use std::path::PathBuf;
use std::sync::{Arc, RwLock, Weak};
use std::time::Duration;

use anyhow::Context;

type Build<T> = dyn Fn(&[Vec<u8>]) -> anyhow::Result<T> + Send + Sync;

/// The current value built from a set of files.
pub struct Reloading<T> {
    current: Arc<RwLock<Arc<T>>>,
}

impl<T> Clone for Reloading<T> {
    fn clone(&self) -> Self {
        Reloading {
            current: self.current.clone(),
        }
    }
}

impl<T: Send + Sync + 'static> Reloading<T> {
    /// Reads `paths` and builds the first value (an error here is a startup
    /// error), then watches them from a background task for as long as this
    /// value (or a clone) is alive. `what` names the value in logs.
    pub fn watch(
        what: &'static str,
        paths: Vec<PathBuf>,
        interval: Duration,
        build: impl Fn(&[Vec<u8>]) -> anyhow::Result<T> + Send + Sync + 'static,
    ) -> anyhow::Result<Self> {
        let contents = read_all(&paths)?;
        let value = build(&contents).with_context(|| format!("loading the {what}"))?;
        let current = Arc::new(RwLock::new(Arc::new(value)));
        let watcher = watch_files(
            what,
            paths,
            contents,
            interval,
            Arc::downgrade(&current),
            Box::new(build),
        );
        tokio::spawn(watcher);
        Ok(Reloading { current })
    }

    /// The value built from the latest good contents of the files.
    pub fn get(&self) -> Arc<T> {
        self.current
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}

fn read_all(paths: &[PathBuf]) -> anyhow::Result<Vec<Vec<u8>>> {
    paths
        .iter()
        .map(|p| std::fs::read(p).with_context(|| format!("cannot read {}", p.display())))
        .collect()
}

async fn watch_files<T>(
    what: &'static str,
    paths: Vec<PathBuf>,
    mut last: Vec<Vec<u8>>,
    interval: Duration,
    current: Weak<RwLock<Arc<T>>>,
    build: Box<Build<T>>,
) {
    let mut hangup = hangup_signal();
    loop {
        let forced = tokio::select! {
            _ = tokio::time::sleep(interval) => false,
            _ = hangup.recv() => true,
        };
        let Some(current) = current.upgrade() else {
            return; // The server is gone.
        };
        let contents = match read_all(&paths) {
            Ok(contents) => contents,
            Err(e) => {
                tracing::warn!(what, error = %format!("{e:#}"), "cannot reload; keeping the current one");
                continue;
            }
        };
        if contents == last && !forced {
            continue;
        }
        match build(&contents) {
            Ok(value) => {
                *current.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(value);
                tracing::info!(what, "reloaded");
                last = contents;
            }
            Err(e) => {
                tracing::warn!(what, error = %format!("{e:#}"), "new files do not load; keeping the current ones");
            }
        }
    }
}

/// SIGHUP as a stream of wake-ups (never fires where there is no SIGHUP).
struct Hangup(#[cfg(unix)] Option<tokio::signal::unix::Signal>);

impl Hangup {
    async fn recv(&mut self) {
        #[cfg(unix)]
        if let Some(signal) = &mut self.0 {
            signal.recv().await;
            return;
        }
        std::future::pending::<()>().await
    }
}

fn hangup_signal() -> Hangup {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        Hangup(signal(SignalKind::hangup()).ok())
    }
    #[cfg(not(unix))]
    Hangup()
}

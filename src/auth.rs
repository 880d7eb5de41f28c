//! Bearer-token authentication for every RPC except health checks.
//!
//! The token file holds one token per line; `#` starts a comment. Tokens are
//! kept as SHA-256 digests and a presented token is compared with every one
//! of them in constant time, so neither timing nor the answer tells anything
//! about which tokens exist.

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use ring::digest::{digest, SHA256};
use subtle::{Choice, ConstantTimeEq};
use tonic::codegen::http;
use tonic::Status;

use crate::reload::Reloading;

/// Requests to these services need no token (probes).
const OPEN_PREFIX: &str = "/grpc.health.v1.Health/";

/// The accepted tokens.
pub struct Tokens {
    digests: Vec<[u8; 32]>,
}

fn sha256(token: &[u8]) -> [u8; 32] {
    let mut out = [0; 32];
    out.copy_from_slice(digest(&SHA256, token).as_ref());
    out
}

/// The tokens of a token file's text: one per line, `#` starts a comment.
pub fn token_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .map(|line| line.split('#').next().unwrap_or("").trim())
        .filter(|line| !line.is_empty())
}

impl Tokens {
    /// Parses a token file; an error when it holds no token.
    pub fn parse(text: &[u8]) -> anyhow::Result<Tokens> {
        let text = std::str::from_utf8(text)
            .map_err(|_| anyhow::anyhow!("the token file is not UTF-8"))?;
        let digests: Vec<_> = token_lines(text).map(|t| sha256(t.as_bytes())).collect();
        anyhow::ensure!(!digests.is_empty(), "the token file holds no token");
        Ok(Tokens { digests })
    }

    /// Whether `token` is one of the tokens (constant time in the token and the set).
    pub fn accepts(&self, token: &[u8]) -> bool {
        let presented = sha256(token);
        let mut found = Choice::from(0);
        for known in &self.digests {
            found |= known.ct_eq(&presented);
        }
        found.into()
    }

    /// The token file at `path`, reloaded when it changes.
    pub fn reloading(path: PathBuf, interval: Duration) -> anyhow::Result<Reloading<Tokens>> {
        Reloading::watch("token file", vec![path], interval, |contents| {
            Tokens::parse(&contents[0])
        })
    }
}

fn bearer(headers: &http::HeaderMap) -> Option<&[u8]> {
    let value = headers.get(http::header::AUTHORIZATION)?.as_bytes();
    let (scheme, token) = value.split_at_checked(7)?;
    scheme
        .eq_ignore_ascii_case(b"bearer ")
        .then_some(token.trim_ascii())
}

/// Tower layer refusing requests without an accepted bearer token.
#[derive(Clone)]
pub struct AuthLayer {
    tokens: Option<Reloading<Tokens>>,
}

impl AuthLayer {
    /// `None` lets every request through.
    pub fn new(tokens: Option<Reloading<Tokens>>) -> Self {
        AuthLayer { tokens }
    }
}

impl<S> tower::Layer<S> for AuthLayer {
    type Service = Auth<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Auth {
            inner,
            tokens: self.tokens.clone(),
        }
    }
}

/// See [`AuthLayer`].
#[derive(Clone)]
pub struct Auth<S> {
    inner: S,
    tokens: Option<Reloading<Tokens>>,
}

impl<S, B> tower::Service<http::Request<B>> for Auth<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<tonic::body::Body>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<S::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let allowed = match &self.tokens {
            None => true,
            Some(tokens) => {
                request.uri().path().starts_with(OPEN_PREFIX)
                    || bearer(request.headers()).is_some_and(|t| tokens.get().accepts(t))
            }
        };
        if allowed {
            Box::pin(self.inner.call(request))
        } else {
            let status = Status::unauthenticated("missing or unknown bearer token");
            Box::pin(std::future::ready(Ok(status.into_http())))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_file_lines_and_comments() {
        let tokens = Tokens::parse(b"# ops\nalpha\n  beta  # ci\n\n#gamma\n").unwrap();
        assert!(tokens.accepts(b"alpha"));
        assert!(tokens.accepts(b"beta"));
        assert!(!tokens.accepts(b"gamma"));
        assert!(!tokens.accepts(b"alph"));
        assert!(!tokens.accepts(b""));
        assert!(Tokens::parse(b"# nothing\n\n").is_err());
    }

    #[test]
    fn bearer_scheme_is_case_insensitive() {
        let mut headers = http::HeaderMap::new();
        assert_eq!(bearer(&headers), None);
        headers.insert("authorization", "bearer abc".parse().unwrap());
        assert_eq!(bearer(&headers), Some(&b"abc"[..]));
        headers.insert("authorization", "Basic abc".parse().unwrap());
        assert_eq!(bearer(&headers), None);
    }
}

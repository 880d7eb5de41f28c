//! Dialling a Deckhand server: plaintext or TLS (with an optional client
//! certificate), and a bearer token on every call. The CLI and the
//! coordinator (towards its workers) both connect through here.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::interceptor::InterceptedService;
use tonic::service::Interceptor;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint, Identity};
use tonic::{Code, Request, Status};

/// The CLI's connection flags (global to every subcommand).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ClientArgs {
    /// CA certificate (PEM) to verify the server with; turns TLS on for any address.
    #[arg(long, global = true, env = "DECKHAND_CA")]
    pub ca: Option<PathBuf>,
    /// Client certificate (PEM) for servers that require mutual TLS.
    #[arg(long, global = true, env = "DECKHAND_CERT", requires = "key")]
    pub cert: Option<PathBuf>,
    /// Private key (PEM) of --cert.
    #[arg(long, global = true, env = "DECKHAND_KEY", requires = "cert")]
    pub key: Option<PathBuf>,
    /// Bearer token sent with every call.
    #[arg(long, global = true, env = "DECKHAND_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
}

impl From<ClientArgs> for ClientOptions {
    fn from(args: ClientArgs) -> Self {
        ClientOptions {
            ca: args.ca,
            cert: args.cert,
            key: args.key,
            token: args.token,
            // A long watch (`batch wait`, `solve-all-foe`) across a partition
            // must notice the dead connection to reconnect, not wait forever.
            keepalive: Some(Duration::from_secs(10)),
            ..ClientOptions::default()
        }
    }
}

/// How to reach and authenticate to a server.
#[derive(Debug, Clone, Default)]
pub struct ClientOptions {
    /// CA to verify the server's certificate with; TLS on for any address.
    pub ca: Option<PathBuf>,
    /// Client certificate and key for mutual TLS.
    pub cert: Option<PathBuf>,
    pub key: Option<PathBuf>,
    /// Name the server's certificate must hold (default: the address's host).
    pub server_name: Option<String>,
    /// Bearer token sent with every call.
    pub token: Option<String>,
    /// File whose first token line is sent (read at each connect, so it can rotate).
    pub token_file: Option<PathBuf>,
    /// HTTP/2 ping interval and answer timeout (pings also while idle).
    pub keepalive: Option<Duration>,
}

/// A channel that adds the bearer token to every call.
pub type Transport = InterceptedService<Channel, BearerToken>;

/// Adds `authorization: Bearer <token>` to each request (nothing when empty).
#[derive(Clone, Default)]
pub struct BearerToken(Option<MetadataValue<Ascii>>);

impl Interceptor for BearerToken {
    fn call(&mut self, mut request: Request<()>) -> Result<Request<()>, Status> {
        if let Some(value) = &self.0 {
            request
                .metadata_mut()
                .insert("authorization", value.clone());
        }
        Ok(request)
    }
}

impl ClientOptions {
    fn uses_tls(&self, addr: &str) -> bool {
        self.ca.is_some() || addr.starts_with("https://")
    }

    /// The endpoint for `addr` (`HOST:PORT` or a URL): TLS when the address is
    /// `https://` or a CA is given.
    pub fn endpoint(&self, addr: &str) -> anyhow::Result<Endpoint> {
        let host_port = addr.split_once("://").map_or(addr, |(_, rest)| rest);
        let tls = self.uses_tls(addr);
        let url = format!("{}://{host_port}", if tls { "https" } else { "http" });
        let endpoint = Endpoint::from_shared(url.clone())
            .with_context(|| format!("bad address {addr:?}"))?
            .connect_timeout(Duration::from_secs(5))
            .tcp_nodelay(true);
        let endpoint = match self.keepalive {
            Some(keepalive) => endpoint
                .http2_keep_alive_interval(keepalive)
                .keep_alive_timeout(keepalive)
                .keep_alive_while_idle(true),
            None => endpoint,
        };
        if !tls {
            anyhow::ensure!(
                self.cert.is_none(),
                "a client certificate needs TLS: give --ca or an https:// address"
            );
            return Ok(endpoint);
        }
        let ca = self
            .ca
            .as_ref()
            .context("an https:// address needs --ca (the CA that signed the server)")?;
        let read =
            |p: &PathBuf| std::fs::read(p).with_context(|| format!("cannot read {}", p.display()));
        let mut config = ClientTlsConfig::new().ca_certificate(Certificate::from_pem(read(ca)?));
        if let (Some(cert), Some(key)) = (&self.cert, &self.key) {
            config = config.identity(Identity::from_pem(read(cert)?, read(key)?));
        }
        if let Some(name) = &self.server_name {
            config = config.domain_name(name.clone());
        }
        Ok(endpoint.tls_config(config)?)
    }

    /// The token to send, from `token` or the first token of `token_file`.
    pub fn bearer(&self) -> anyhow::Result<BearerToken> {
        let token = match (&self.token, &self.token_file) {
            (Some(token), _) => Some(token.trim().to_string()),
            (None, Some(path)) => {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("cannot read {}", path.display()))?;
                let token = crate::auth::token_lines(&text).next();
                Some(token.context("the token file holds no token")?.to_string())
            }
            (None, None) => None,
        };
        let value = token
            .map(|t| format!("Bearer {t}").parse())
            .transpose()
            .map_err(|_| anyhow::anyhow!("the token has characters not allowed in a header"))?;
        Ok(BearerToken(value))
    }

    /// Connects to `addr`.
    pub async fn connect(&self, addr: &str) -> anyhow::Result<Transport> {
        let bearer = self.bearer()?;
        let endpoint = self.endpoint(addr)?;
        let channel = endpoint
            .connect()
            .await
            .with_context(|| format!("cannot connect to {addr}"))?;
        Ok(InterceptedService::new(channel, bearer))
    }
}

/// Why a call or a connection failed, as far as security goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The server refused us, or we refused the server: fixing it needs a
    /// configuration change (certificates, CA, token), not a retry.
    Refused(String),
    /// Anything else (unreachable, timed out, broken stream).
    Other(String),
}

impl Failure {
    pub fn reason(&self) -> &str {
        match self {
            Failure::Refused(r) | Failure::Other(r) => r,
        }
    }
}

/// Classifies a failed call or connection: a TLS failure or a refused token
/// becomes [`Failure::Refused`] with a plain reason.
pub fn classify(error: &(dyn std::error::Error + 'static)) -> Failure {
    for e in sources(error) {
        if let Some(status) = e.downcast_ref::<Status>() {
            match status.code() {
                Code::Unauthenticated => {
                    return Failure::Refused(format!("token refused: {}", status.message()))
                }
                Code::PermissionDenied => {
                    return Failure::Refused(format!("permission denied: {}", status.message()))
                }
                _ => {}
            }
        }
        let tls = e.downcast_ref::<rustls::Error>().or_else(|| {
            e.downcast_ref::<std::io::Error>()
                .and_then(|io| io.get_ref())
                .and_then(|inner| inner.downcast_ref::<rustls::Error>())
        });
        if let Some(tls) = tls {
            return Failure::Refused(explain_tls(tls));
        }
        // rustls reports alerts read after the handshake as text only.
        let text = e.to_string();
        if let Some(after) = text.split("received fatal alert: ").nth(1) {
            let alert = after.split(|c: char| !c.is_ascii_alphanumeric()).next();
            return Failure::Refused(explain_alert(alert.unwrap_or_default()));
        }
    }
    Failure::Other(chain(error))
}

/// The error, then its sources in turn.
fn sources<'e>(
    error: &'e (dyn std::error::Error + 'static),
) -> impl Iterator<Item = &'e (dyn std::error::Error + 'static)> {
    std::iter::successors(Some(error), |e| e.source())
}

/// Whether a call failed before the server began it, so that sending it again does
/// nothing twice: an HTTP/2 GOAWAY without error from the server (a graceful
/// shutdown refuses the streams it has not begun) or a stream reset with
/// REFUSED_STREAM. h2 gives a stream the GOAWAY's error only when its id is above
/// the GOAWAY's last stream, one the server never began; a stream it began and then
/// cut by closing the connection fails with a broken pipe instead.
pub fn refused_unserved(status: &Status) -> bool {
    let h2 = sources(status).find_map(|e| e.downcast_ref::<h2::Error>());
    h2.is_some_and(|h2| {
        h2.is_remote()
            && match h2.reason() {
                Some(h2::Reason::NO_ERROR) => h2.is_go_away(),
                Some(h2::Reason::REFUSED_STREAM) => h2.is_reset(),
                _ => false,
            }
    })
}

fn explain_tls(error: &rustls::Error) -> String {
    use rustls::{CertificateError as Cert, Error};
    match error {
        Error::InvalidCertificate(Cert::UnknownIssuer) => {
            "unknown CA: the server's certificate is not signed by the CA we trust".into()
        }
        Error::InvalidCertificate(Cert::Expired | Cert::ExpiredContext { .. }) => {
            "bad certificate: the server's certificate has expired".into()
        }
        Error::InvalidCertificate(Cert::NotValidForName | Cert::NotValidForNameContext { .. }) => {
            "bad certificate: the server's certificate does not name the address dialled".into()
        }
        Error::InvalidCertificate(other) => format!("bad certificate from the server: {other:?}"),
        Error::AlertReceived(alert) => explain_alert(&format!("{alert:?}")),
        Error::InvalidMessage(_) => {
            "TLS handshake failed: the server does not speak TLS (plaintext server?)".into()
        }
        other => format!("TLS failed: {other}"),
    }
}

/// What a TLS alert from the server (by its rustls name) means for us.
fn explain_alert(alert: &str) -> String {
    match alert {
        "CertificateRequired" => "refused: the server requires a client certificate".into(),
        "UnknownCA" => "unknown CA: the server does not trust the CA of our certificate".into(),
        "CertificateExpired" => {
            "bad certificate: the server says our certificate has expired".into()
        }
        _ => format!("bad certificate: the server refused our TLS handshake ({alert})"),
    }
}

/// The error and its sources, `: `-separated.
fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    for e in sources(error).skip(1) {
        let part = e.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;
    use crate::proto::preferans::v1 as pb;
    use pb::preferans_worker_service_client::PreferansWorkerServiceClient;

    /// An HTTP/2 frame: its 9-byte header (length, type, flags, stream) and payload.
    fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
        let mut bytes = (payload.len() as u32).to_be_bytes()[1..].to_vec();
        bytes.extend([kind, flags]);
        bytes.extend(stream.to_be_bytes());
        bytes.extend(payload);
        bytes
    }

    // Frame types, and the flag that acknowledges settings.
    const HEADERS: u8 = 0x1;
    const RST_STREAM: u8 = 0x3;
    const SETTINGS: u8 = 0x4;
    const GOAWAY: u8 = 0x7;
    const ACK: u8 = 0x1;

    /// The status a gRPC client gets when a server, written frame by frame, answers
    /// the first request's headers with the frames `answer` makes of that stream's id,
    /// then closes the connection.
    async fn status_when_the_server_answers(
        answer: impl Fn(u32) -> Vec<u8> + Send + 'static,
    ) -> Status {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut preface = [0u8; 24];
            socket.read_exact(&mut preface).await.unwrap();
            socket.write_all(&frame(SETTINGS, 0, 0, &[])).await.unwrap();
            loop {
                let mut header = [0u8; 9];
                socket.read_exact(&mut header).await.unwrap();
                let length = u32::from_be_bytes([0, header[0], header[1], header[2]]);
                let mut payload = vec![0u8; length as usize];
                socket.read_exact(&mut payload).await.unwrap();
                let stream = u32::from_be_bytes([header[5], header[6], header[7], header[8]]);
                match header[3] {
                    // The client's settings, acknowledged.
                    SETTINGS if header[4] & ACK == 0 => socket
                        .write_all(&frame(SETTINGS, ACK, 0, &[]))
                        .await
                        .unwrap(),
                    // A request's headers.
                    HEADERS => {
                        socket
                            .write_all(&answer(stream & 0x7fff_ffff))
                            .await
                            .unwrap();
                        break;
                    }
                    _ => {}
                }
            }
            // Read on until the client is done, then close.
            let mut rest = [0u8; 1024];
            while let Ok(n) =
                tokio::time::timeout(Duration::from_millis(500), socket.read(&mut rest)).await
            {
                if n.unwrap_or(0) == 0 {
                    break;
                }
            }
        });
        let channel = Endpoint::from_shared(format!("http://{addr}"))
            .unwrap()
            .connect()
            .await
            .unwrap();
        let mut client = PreferansWorkerServiceClient::new(channel);
        let call = client.solve_layouts(pb::SolveLayoutsRequest::default());
        match tokio::time::timeout(Duration::from_secs(10), call).await {
            Ok(Err(status)) => status,
            Ok(Ok(_)) => panic!("the call got an answer"),
            Err(_) => panic!("the call did not end"),
        }
    }

    /// A GOAWAY frame: the last stream the server began, and why it goes.
    fn goaway(last: u32, reason: u32) -> Vec<u8> {
        let payload: Vec<u8> = last
            .to_be_bytes()
            .into_iter()
            .chain(reason.to_be_bytes())
            .collect();
        frame(GOAWAY, 0, 0, &payload)
    }

    /// An RST_STREAM frame ending `stream` for `reason`.
    fn rst_stream(stream: u32, reason: u32) -> Vec<u8> {
        frame(RST_STREAM, 0, stream, &reason.to_be_bytes())
    }

    #[tokio::test]
    async fn calls_refused_before_they_began_are_told_apart() {
        // HTTP/2 error codes.
        let (no_error, protocol_error, refused_stream, cancel) = (0u32, 1u32, 7u32, 8u32);
        type Answer = Box<dyn Fn(u32) -> Vec<u8> + Send>;
        let cases: [(&str, Answer, bool); 5] = [
            (
                "a graceful GOAWAY before the stream",
                Box::new(move |_| goaway(0, no_error)),
                true,
            ),
            (
                "RST_STREAM REFUSED_STREAM",
                Box::new(move |id| rst_stream(id, refused_stream)),
                true,
            ),
            // Began, then cut: the connection closes with the stream open.
            (
                "a graceful GOAWAY that spares the stream",
                Box::new(move |id| goaway(id, no_error)),
                false,
            ),
            (
                "a GOAWAY for an error",
                Box::new(move |_| goaway(0, protocol_error)),
                false,
            ),
            (
                "RST_STREAM CANCEL",
                Box::new(move |id| rst_stream(id, cancel)),
                false,
            ),
        ];
        for (what, answer, refused) in cases {
            let status = status_when_the_server_answers(answer).await;
            assert_eq!(refused_unserved(&status), refused, "{what}: {status:?}");
        }
        assert!(!refused_unserved(&Status::unavailable("worker down")));
    }
}

//! Server-side TLS (rustls with the ring provider): the certificate, key and,
//! for mutual TLS, the client CA come from PEM files that are reloaded when
//! they change (see [`crate::reload`]). Each new connection takes the current
//! configuration; connections already open keep theirs.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::WebPkiClientVerifier;
use rustls::{RootCertStore, ServerConfig};

use crate::reload::Reloading;

/// PEM files of a TLS server.
#[derive(Debug, Clone)]
pub struct TlsFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
    /// Require client certificates signed by this CA (mutual TLS).
    pub client_ca: Option<PathBuf>,
}

/// The crypto provider every Deckhand TLS configuration uses.
pub fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// Certificates from PEM text; an error when there are none.
pub fn parse_certs(pem: &[u8], what: &str) -> anyhow::Result<Vec<CertificateDer<'static>>> {
    let certs = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<Vec<_>, _>>()
        .with_context(|| format!("{what}: not PEM certificates"))?;
    anyhow::ensure!(!certs.is_empty(), "{what}: no certificate in the file");
    Ok(certs)
}

/// A private key from PEM text (PKCS#8, PKCS#1 or SEC1).
pub fn parse_key(pem: &[u8], what: &str) -> anyhow::Result<PrivateKeyDer<'static>> {
    PrivateKeyDer::from_pem_slice(pem).with_context(|| format!("{what}: no PEM private key"))
}

/// A root store holding the certificates of a PEM CA file.
pub fn parse_roots(pem: &[u8], what: &str) -> anyhow::Result<RootCertStore> {
    let mut roots = RootCertStore::empty();
    for cert in parse_certs(pem, what)? {
        roots
            .add(cert)
            .with_context(|| format!("{what}: not a usable CA certificate"))?;
    }
    Ok(roots)
}

/// The rustls server configuration from the contents of cert, key and
/// (optionally) client CA files, offering HTTP/2 only.
pub fn server_config(
    cert: &[u8],
    key: &[u8],
    client_ca: Option<&[u8]>,
) -> anyhow::Result<ServerConfig> {
    let certs = parse_certs(cert, "--tls-cert")?;
    let key = parse_key(key, "--tls-key")?;
    let builder = ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .context("TLS protocol versions")?;
    let builder = match client_ca {
        Some(ca) => {
            let roots = parse_roots(ca, "--tls-client-ca")?;
            let verifier = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider())
                .build()
                .context("--tls-client-ca")?;
            builder.with_client_cert_verifier(verifier)
        }
        None => builder.with_no_client_auth(),
    };
    let mut config = builder
        .with_single_cert(certs, key)
        .context("--tls-cert and --tls-key do not form a usable pair")?;
    config.alpn_protocols = vec![b"h2".to_vec()];
    Ok(config)
}

/// The server configuration from `files`, reloaded when they change.
pub fn reloading(files: &TlsFiles, interval: Duration) -> anyhow::Result<Reloading<ServerConfig>> {
    let mut paths = vec![files.cert.clone(), files.key.clone()];
    paths.extend(files.client_ca.clone());
    Reloading::watch("TLS certificate", paths, interval, |contents| {
        server_config(
            &contents[0],
            &contents[1],
            contents.get(2).map(Vec::as_slice),
        )
    })
}

/// Transport-security flags shared by every server binary.
#[derive(Debug, Clone, clap::Args)]
pub struct SecurityArgs {
    /// Certificate chain (PEM); with --tls-key turns TLS on. Reloaded when it changes.
    #[arg(long, env = "DECKHAND_TLS_CERT", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// Private key (PEM) of --tls-cert.
    #[arg(long, env = "DECKHAND_TLS_KEY", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Require client certificates signed by this CA (PEM): mutual TLS.
    #[arg(long, env = "DECKHAND_TLS_CLIENT_CA", requires = "tls_cert")]
    pub tls_client_ca: Option<PathBuf>,
    /// Token file (one per line, `#` comments): every RPC but health needs `authorization: Bearer <token>`.
    #[arg(long, env = "DECKHAND_AUTH_TOKENS")]
    pub auth_tokens: Option<PathBuf>,
    /// Seconds between checks of the certificate and token files for changes (SIGHUP checks at once).
    #[arg(long, env = "DECKHAND_RELOAD_INTERVAL_SECS", default_value_t = 10)]
    pub reload_interval_secs: u64,
    /// Serve gRPC server reflection.
    #[arg(long, env = "DECKHAND_REFLECTION", default_value_t = true, action = clap::ArgAction::Set)]
    pub reflection: bool,
}

/// Validated transport-security settings.
#[derive(Debug, Clone)]
pub struct Security {
    pub tls: Option<TlsFiles>,
    pub auth_tokens: Option<PathBuf>,
    pub reload_interval: Duration,
    pub reflection: bool,
}

impl Default for Security {
    fn default() -> Self {
        Security {
            tls: None,
            auth_tokens: None,
            reload_interval: Duration::from_secs(10),
            reflection: true,
        }
    }
}

impl From<SecurityArgs> for Security {
    fn from(args: SecurityArgs) -> Self {
        Security {
            tls: args.tls_cert.zip(args.tls_key).map(|(cert, key)| TlsFiles {
                cert,
                key,
                client_ca: args.tls_client_ca,
            }),
            auth_tokens: args.auth_tokens,
            reload_interval: Duration::from_secs(args.reload_interval_secs.max(1)),
            reflection: args.reflection,
        }
    }
}

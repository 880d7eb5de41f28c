//! tonic answers two client faults with codes that tell the client the wrong
//! thing to do: a request whose bytes are not a valid protobuf message is
//! INTERNAL (it is the client's to fix: INVALID_ARGUMENT), and a message over
//! the size limit is OUT_OF_RANGE (the gRPC convention, and what clients retry
//! on, is RESOURCE_EXHAUSTED). [`TransportErrorsLayer`] rewrites both on the
//! way out; [`client_fault`] does the same for errors read from a request stream.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use tonic::codegen::http;
use tonic::{Code, Status};

/// tonic-prost's message for bytes that do not decode as the request type.
const DECODE_FAILED: &str = "failed to decode Protobuf message";
/// tonic's message for a request over `max_decoding_message_size`.
const REQUEST_TOO_LARGE: &str = "Error, decoded message length too large";
/// tonic's message for an answer over `max_encoding_message_size`.
const ANSWER_TOO_LARGE: &str = "Error, encoded message length too large";

/// The status a client should see for `status`, when tonic's own differs.
pub fn client_fault(status: &Status) -> Option<Status> {
    let message = status.message();
    match status.code() {
        Code::Internal if message.starts_with(DECODE_FAILED) => Some(Status::invalid_argument(
            format!("malformed request: {message}"),
        )),
        Code::OutOfRange if message.starts_with(REQUEST_TOO_LARGE) => {
            Some(Status::resource_exhausted(format!(
                "request too large: {}; send smaller batches or the stream form",
                message.trim_start_matches("Error, ")
            )))
        }
        Code::OutOfRange if message.starts_with(ANSWER_TOO_LARGE) => {
            Some(Status::resource_exhausted(format!(
                "answer too large: {}; send smaller batches or the stream form",
                message.trim_start_matches("Error, ")
            )))
        }
        _ => None,
    }
}

/// Maps a request-stream read error to what the client should see.
pub fn request_stream_error(status: Status) -> Status {
    client_fault(&status).unwrap_or(status)
}

/// Tower layer applying [`client_fault`] to trailers-only responses, which is
/// how tonic reports a request it could not decode.
#[derive(Debug, Clone, Copy, Default)]
pub struct TransportErrorsLayer;

impl<S> tower::Layer<S> for TransportErrorsLayer {
    type Service = TransportErrors<S>;

    fn layer(&self, inner: S) -> Self::Service {
        TransportErrors { inner }
    }
}

/// See [`TransportErrorsLayer`].
#[derive(Debug, Clone)]
pub struct TransportErrors<S> {
    inner: S,
}

impl<S, B, R> tower::Service<http::Request<B>> for TransportErrors<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<R>>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<S::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let future = self.inner.call(request);
        Box::pin(async move {
            let mut response = future.await?;
            let headers = response.headers_mut();
            let mapped = Status::from_header_map(headers)
                .as_ref()
                .and_then(client_fault);
            if let Some(status) = mapped {
                headers.remove("grpc-message");
                headers.remove("grpc-status-details-bin");
                // Writes grpc-status and grpc-message, replacing the old code.
                let _ = status.add_header(headers);
            }
            Ok(response)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_only_tonics_own_messages() {
        let decode = Status::internal("failed to decode Protobuf message: invalid wire type");
        assert_eq!(client_fault(&decode).unwrap().code(), Code::InvalidArgument);
        let large = Status::out_of_range(
            "Error, decoded message length too large: found 20 bytes, the limit is: 10 bytes",
        );
        let mapped = client_fault(&large).unwrap();
        assert_eq!(mapped.code(), Code::ResourceExhausted);
        assert!(mapped.message().contains("found 20 bytes"));
        assert!(client_fault(&Status::internal("solver failed")).is_none());
        assert!(client_fault(&Status::out_of_range("layout 200000")).is_none());
    }
}

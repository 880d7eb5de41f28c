//! Memory budgets: a batch request states what it will cost before it runs,
//! and is refused at once with RESOURCE_EXHAUSTED when that is over the
//! per-request budget, over what the server has left for all requests in
//! flight, or when its answer could exceed the message-size limit. The
//! message says what to change: smaller batches, or the stream form.
//!
//! Costs are upper bounds from item counts and sizes (what each service knows
//! about its engine: the decoded item, its working memory, the largest answer
//! one item can have), so the check needs no work and no allocation.
//!
//! A reservation lasts until the answer has left the server, not only until
//! the handler returns: an answer the client does not read stays in the
//! server's send buffers. A handler answers with [`Reservation::answer`], and
//! [`AnswerMemoryLayer`] keeps the reservation with the response body until
//! the body is dropped (sent, or the call cut off).

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use tonic::codegen::http;
use tonic::Status;

/// Default `--max-request-memory`: what one request may hold at its peak.
pub const DEFAULT_MAX_REQUEST_MEMORY: usize = 96 << 20;
/// Default `--max-inflight-memory`: what all requests in flight may hold
/// together (the Kubernetes memory limit in `deploy/` is 512 MiB).
pub const DEFAULT_MAX_INFLIGHT_MEMORY: usize = 256 << 20;

/// The memory limits of one server, shared by its services.
#[derive(Debug, Clone)]
pub struct MemoryBudget {
    per_request: usize,
    inflight_limit: usize,
    max_message_bytes: usize,
    inflight: Arc<AtomicUsize>,
}

/// The estimated cost of one batch, summed item by item before it runs.
#[derive(Debug, Clone)]
pub struct BatchCost {
    field: &'static str,
    stream_form: Option<&'static str>,
    /// What the items are called in messages, and the fixed advice of a
    /// listing (see [`BatchCost::listing`]).
    unit: &'static str,
    listing_advice: Option<&'static str>,
    items: usize,
    memory: usize,
    answer_bytes: usize,
}

impl BatchCost {
    /// A cost for the batch in `field` (`items`, `pairs`, `hands`); `stream_form`
    /// names the RPC to use for batches that do not fit (None: only smaller batches).
    pub fn new(field: &'static str, stream_form: Option<&'static str>) -> Self {
        BatchCost {
            field,
            stream_form,
            unit: "items",
            listing_advice: None,
            items: 0,
            memory: 0,
            answer_bytes: 0,
        }
    }

    /// The cost of one answer listing many entries (`unit`, such as the plays
    /// of a hand), named by the request's `field`; `advice` says what to
    /// change when it does not fit.
    pub fn listing(field: &'static str, unit: &'static str, advice: &'static str) -> Self {
        BatchCost {
            unit,
            listing_advice: Some(advice),
            ..BatchCost::new(field, None)
        }
    }

    /// Adds one item: an upper bound on the memory it holds while the request
    /// runs (decoded item, working memory, answer in memory and encoded), and
    /// on its answer's encoded size.
    pub fn item(&mut self, memory: usize, answer_bytes: usize) {
        self.items += 1;
        self.memory = self.memory.saturating_add(memory);
        self.answer_bytes = self.answer_bytes.saturating_add(answer_bytes);
    }

    /// `count` items of the same cost.
    pub fn items(&mut self, count: usize, memory: usize, answer_bytes: usize) {
        self.items += count;
        self.memory = self.memory.saturating_add(memory.saturating_mul(count));
        self.answer_bytes = self
            .answer_bytes
            .saturating_add(answer_bytes.saturating_mul(count));
    }

    /// The estimated peak memory of the batch.
    pub fn memory(&self) -> usize {
        self.memory
    }

    /// The bound on the encoded answer.
    pub fn answer_bytes(&self) -> usize {
        self.answer_bytes
    }

    /// What to change, given how many such items would fit.
    fn advice(&self, fits: usize) -> String {
        if let Some(advice) = self.listing_advice {
            return advice.to_string();
        }
        let fits = fits.max(1);
        match self.stream_form {
            Some(rpc) => format!("send at most {fits} items per request, or use {rpc}"),
            None => format!("send at most {fits} items per request"),
        }
    }
}

/// Memory held by a running request; given back when dropped.
#[must_use = "the reservation is released when dropped"]
#[derive(Debug)]
pub struct Reservation {
    bytes: usize,
    /// What is still held once the answer is made: its encoded bytes.
    answer_bytes: usize,
    inflight: Arc<AtomicUsize>,
}

impl Reservation {
    /// Bytes reserved.
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

impl Reservation {
    /// `message` as the answer, holding the reservation of its encoded bytes
    /// until it has been sent (see [`AnswerMemoryLayer`]); the rest (decoded
    /// request, working memory) is given back now.
    pub fn answer<T>(self, message: T) -> tonic::Response<T> {
        let mut response = tonic::Response::new(message);
        response.extensions_mut().insert(self.held());
        response
    }

    /// The reservation as its answer's (for an answer sent on a stream):
    /// only the answer's encoded bytes stay reserved.
    pub fn held(mut self) -> AnswerMemory {
        let freed = self.bytes - self.answer_bytes;
        self.inflight.fetch_sub(freed, Ordering::AcqRel);
        self.bytes = self.answer_bytes;
        AnswerMemory {
            _reserved: Arc::new(self),
        }
    }
}

/// The reservation an answer holds until it is sent.
#[derive(Debug, Clone)]
pub struct AnswerMemory {
    _reserved: Arc<Reservation>,
}

impl AnswerMemory {
    /// Takes the reservation out of an answer (a stream form holds it while
    /// the answer waits in the stream).
    pub fn take<T>(response: &mut tonic::Response<T>) -> Option<AnswerMemory> {
        response.extensions_mut().remove::<AnswerMemory>()
    }
}

/// Tower layer that moves an answer's [`AnswerMemory`] from the response into
/// its body, so the reservation is given back when the body is dropped: once
/// hyper has handed the last of it to the connection, or the call ended.
#[derive(Debug, Clone, Copy, Default)]
pub struct AnswerMemoryLayer;

impl<S> tower::Layer<S> for AnswerMemoryLayer {
    type Service = HoldAnswerMemory<S>;

    fn layer(&self, inner: S) -> Self::Service {
        HoldAnswerMemory { inner }
    }
}

/// See [`AnswerMemoryLayer`].
#[derive(Debug, Clone)]
pub struct HoldAnswerMemory<S> {
    inner: S,
}

type HttpResponse = http::Response<tonic::body::Body>;

impl<S, B> tower::Service<http::Request<B>> for HoldAnswerMemory<S>
where
    S: tower::Service<http::Request<B>, Response = HttpResponse>,
    S::Future: Send + 'static,
{
    type Response = HttpResponse;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<HttpResponse, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let future = self.inner.call(request);
        Box::pin(async move {
            let mut response = future.await?;
            Ok(match response.extensions_mut().remove::<AnswerMemory>() {
                None => response,
                Some(held) => response.map(|body| {
                    tonic::body::Body::new(HeldBody {
                        body,
                        rest: None,
                        _held: held,
                    })
                }),
            })
        })
    }
}

/// Pieces an answer is handed to the connection in. hyper takes a whole data
/// frame into the HTTP/2 send buffer as soon as the peer's window has a byte
/// of room, so the answer is handed over piece by piece: the body, and the
/// reservation, then live until the peer has taken all but the last piece.
const PIECE_BYTES: usize = 64 << 10;

/// A response body and the reservation of its answer.
struct HeldBody {
    body: tonic::body::Body,
    /// What is left of the data frame being handed over.
    rest: Option<Bytes>,
    _held: AnswerMemory,
}

impl HeldBody {
    /// The next piece of `data`; the remainder is kept for the next poll.
    fn piece(&mut self, mut data: Bytes) -> Bytes {
        if data.len() > PIECE_BYTES {
            self.rest = Some(data.split_off(PIECE_BYTES));
        }
        data
    }
}

impl http_body::Body for HeldBody {
    type Data = Bytes;
    type Error = <tonic::body::Body as http_body::Body>::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        let data = match this.rest.take() {
            Some(rest) => rest,
            None => match std::task::ready!(Pin::new(&mut this.body).poll_frame(cx)) {
                Some(Ok(frame)) => match frame.into_data() {
                    Ok(data) => data,
                    Err(frame) => return Poll::Ready(Some(Ok(frame))),
                },
                other => return Poll::Ready(other),
            },
        };
        Poll::Ready(Some(Ok(http_body::Frame::data(this.piece(data)))))
    }

    fn is_end_stream(&self) -> bool {
        self.rest.is_none() && self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        let mut hint = self.body.size_hint();
        let rest = self.rest.as_ref().map_or(0, |r| r.len() as u64);
        hint.set_lower(hint.lower() + rest);
        if let Some(upper) = hint.upper() {
            hint.set_upper(upper + rest);
        }
        hint
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        self.inflight.fetch_sub(self.bytes, Ordering::AcqRel);
    }
}

fn mib(bytes: usize) -> String {
    format!("{:.1} MiB", bytes as f64 / f64::from(1u32 << 20))
}

impl MemoryBudget {
    /// A budget of `per_request` bytes for one request and `inflight` bytes for
    /// all requests together; answers may not exceed `max_message_bytes`.
    pub fn new(per_request: usize, inflight: usize, max_message_bytes: usize) -> Self {
        MemoryBudget {
            per_request,
            inflight_limit: inflight,
            max_message_bytes,
            inflight: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// The per-request budget.
    pub fn per_request(&self) -> usize {
        self.per_request
    }

    /// The in-flight budget.
    pub fn inflight_limit(&self) -> usize {
        self.inflight_limit
    }

    /// The largest encoded message.
    pub fn max_message_bytes(&self) -> usize {
        self.max_message_bytes
    }

    /// Bytes reserved by requests in flight now.
    pub fn in_flight(&self) -> usize {
        self.inflight.load(Ordering::Acquire)
    }

    /// Checks `cost` against the message limit and the per-request budget, then
    /// reserves it from the in-flight budget; refuses with RESOURCE_EXHAUSTED.
    pub fn reserve(&self, cost: &BatchCost) -> Result<Reservation, Status> {
        let per_item = |total: usize| total.div_ceil(cost.items.max(1)).max(1);
        // How many items of this batch's average size fit both limits.
        let fits = (self.max_message_bytes / per_item(cost.answer_bytes))
            .min(self.per_request / per_item(cost.memory));
        // 5 bytes of gRPC framing, a few for the repeated field's tag and length.
        let answer = cost.answer_bytes.saturating_add(16);
        if answer > self.max_message_bytes {
            return Err(Status::resource_exhausted(format!(
                "{}: the answer to {} {} can reach {}, over the message limit of {} \
                 (--max-message-bytes): {}",
                cost.field,
                cost.items,
                cost.unit,
                mib(answer),
                mib(self.max_message_bytes),
                cost.advice(fits)
            )));
        }
        if cost.memory > self.per_request {
            return Err(Status::resource_exhausted(format!(
                "{}: {} {} need up to {} of memory, over the per-request budget of {} \
                 (--max-request-memory): {}",
                cost.field,
                cost.items,
                cost.unit,
                mib(cost.memory),
                mib(self.per_request),
                cost.advice(fits)
            )));
        }
        let mut reservation = self.take(cost.memory).ok_or_else(|| {
            Status::resource_exhausted(format!(
                "{}: server busy: {} {} need up to {}, and {} of the in-flight budget of {} \
                 (--max-inflight-memory) is taken; retry later, or send smaller batches",
                cost.field,
                cost.items,
                cost.unit,
                mib(cost.memory),
                mib(self.in_flight()),
                mib(self.inflight_limit)
            ))
        })?;
        reservation.answer_bytes = cost.answer_bytes.min(cost.memory);
        Ok(reservation)
    }

    /// Reserves the memory of an answer of `bytes` encoded until it has been
    /// sent; RESOURCE_EXHAUSTED when the in-flight budget has no room now.
    pub fn reserve_answer(&self, bytes: usize) -> Result<Reservation, Status> {
        self.take(bytes).ok_or_else(|| {
            Status::resource_exhausted(format!(
                "server busy: the answer needs {}, and {} of the in-flight budget of {} \
                 (--max-inflight-memory) is taken; retry later",
                mib(bytes),
                mib(self.in_flight()),
                mib(self.inflight_limit)
            ))
        })
    }

    /// Reserves `bytes` from the in-flight budget if they fit now.
    pub fn take(&self, bytes: usize) -> Option<Reservation> {
        self.inflight
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |held| {
                held.checked_add(bytes)
                    .filter(|&total| total <= self.inflight_limit)
            })
            .ok()?;
        Some(Reservation {
            bytes,
            answer_bytes: bytes,
            inflight: Arc::clone(&self.inflight),
        })
    }
}

impl Default for MemoryBudget {
    fn default() -> Self {
        MemoryBudget::new(
            DEFAULT_MAX_REQUEST_MEMORY,
            DEFAULT_MAX_INFLIGHT_MEMORY,
            16 << 20,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic::Code;

    fn cost(items: usize, memory: usize, answer: usize) -> BatchCost {
        let mut cost = BatchCost::new("items", Some("ArrangeBatchStream"));
        cost.items(items, memory, answer);
        cost
    }

    #[test]
    fn answer_over_the_message_limit_is_refused_with_advice() {
        let budget = MemoryBudget::new(1 << 30, 1 << 30, 1 << 20);
        let status = budget.reserve(&cost(2000, 10, 1000)).unwrap_err();
        assert_eq!(status.code(), Code::ResourceExhausted);
        let message = status.message();
        assert!(
            message.starts_with("items: the answer to 2000 items"),
            "{message}"
        );
        assert!(
            message.contains("send at most 1048 items per request"),
            "{message}"
        );
        assert!(message.contains("ArrangeBatchStream"), "{message}");
        assert_eq!(budget.in_flight(), 0);
    }

    #[test]
    fn an_answer_keeps_only_its_encoded_bytes() {
        let budget = MemoryBudget::new(1 << 20, 1 << 20, 1 << 20);
        let reserved = budget.reserve(&cost(10, 100, 30)).unwrap();
        assert_eq!(budget.in_flight(), 1000);
        let response = reserved.answer("answer");
        assert_eq!(budget.in_flight(), 300);
        drop(response);
        assert_eq!(budget.in_flight(), 0);
    }

    #[test]
    fn per_request_and_in_flight_budgets() {
        let budget = MemoryBudget::new(1000, 2500, 1 << 20);
        let status = budget.reserve(&cost(11, 100, 1)).unwrap_err();
        assert!(status.message().contains("--max-request-memory"));
        assert!(status.message().contains("at most 10 items"));
        let a = budget.reserve(&cost(10, 100, 1)).unwrap();
        let b = budget.reserve(&cost(10, 100, 1)).unwrap();
        assert_eq!(budget.in_flight(), 2000);
        let busy = budget.reserve(&cost(10, 100, 1)).unwrap_err();
        assert_eq!(busy.code(), Code::ResourceExhausted);
        assert!(busy.message().contains("--max-inflight-memory"));
        drop(a);
        let c = budget.reserve(&cost(10, 100, 1)).unwrap();
        drop((b, c));
        assert_eq!(budget.in_flight(), 0);
    }
}

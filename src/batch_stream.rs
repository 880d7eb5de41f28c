//! The stream form of a batch RPC: the client sends a stream of batch
//! requests and gets one batch answer per request, in order. Each message is
//! handled like the unary batch (same validation, same memory budget), and at
//! most [`IN_FLIGHT`] answers wait for the client: when it reads slowly the
//! server stops reading requests, HTTP/2 flow control holds the client back,
//! and memory stays constant however many items pass. Each answer keeps its
//! memory reservation while it waits, and until the next answer is taken
//! (by then it has been handed to the connection).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::sync::mpsc;
use tokio_stream::{Stream, StreamExt};
use tonic::Status;

use crate::budget::AnswerMemory;
use crate::transport_errors::request_stream_error;

/// Answers computed but not yet taken by the client.
pub const IN_FLIGHT: usize = 2;

/// An answer and the memory reservation it holds.
pub type Held<T> = (Result<T, Status>, Option<AnswerMemory>);

/// A channel of answers, each with the reservation it holds, whose receiving
/// end is the answer stream of an RPC.
pub fn answer_channel<T>(capacity: usize) -> (mpsc::Sender<Held<T>>, AnswerStream<T>) {
    let (tx, rx) = mpsc::channel(capacity);
    let stream = AnswerStream {
        answers: rx,
        taken: None,
    };
    (tx, stream)
}

/// The answer stream of a stream-form batch RPC.
pub struct AnswerStream<T> {
    answers: mpsc::Receiver<Held<T>>,
    /// The reservation of the answer taken last.
    taken: Option<AnswerMemory>,
}

impl<T> Stream for AnswerStream<T> {
    type Item = Result<T, Status>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        let next = std::task::ready!(this.answers.poll_recv(cx));
        let (answer, held) = match next {
            Some((answer, held)) => (Some(answer), held),
            None => (None, None),
        };
        this.taken = held;
        Poll::Ready(answer)
    }
}

/// Answers each message of `requests` with `handle(message)`, in order. The
/// first error ends the stream; its message is prefixed with the index of the
/// request message it is about (`messages[3]: items[2].tiles[0]: …`). A client
/// that goes away stops the work between messages.
pub fn answer_each<Req, Resp, S, F, Fut>(requests: S, handle: F) -> AnswerStream<Resp>
where
    S: Stream<Item = Result<Req, Status>> + Send + 'static,
    Req: Send + 'static,
    Resp: Send + 'static,
    F: Fn(Req) -> Fut + Send + 'static,
    Fut: Future<Output = Result<tonic::Response<Resp>, Status>> + Send,
{
    let (tx, answers) = answer_channel(IN_FLIGHT);
    tokio::spawn(async move {
        let mut requests = std::pin::pin!(requests);
        let mut index = 0usize;
        loop {
            let next = tokio::select! {
                next = requests.next() => next,
                _ = tx.closed() => return,
            };
            let answer = match next {
                None => return,
                Some(Err(status)) => Err(request_stream_error(status)),
                Some(Ok(request)) => tokio::select! {
                    answer = handle(request) => answer.map_err(|s| in_message(index, s)),
                    _ = tx.closed() => return,
                },
            };
            let failed = answer.is_err();
            let held = match answer {
                Ok(mut response) => {
                    let held = AnswerMemory::take(&mut response);
                    (Ok(response.into_inner()), held)
                }
                Err(status) => (Err(status), None),
            };
            if tx.send(held).await.is_err() || failed {
                return;
            }
            index += 1;
        }
    });
    answers
}

/// `status` with the request message's index in front of its message (its
/// details, such as the field violations, are kept).
fn in_message(index: usize, status: Status) -> Status {
    Status::with_details(
        status.code(),
        format!("messages[{index}]: {}", status.message()),
        status.details().to_vec().into(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use tonic::Code;

    #[tokio::test]
    async fn answers_in_order_and_stops_at_the_first_error() {
        let requests = tokio_stream::iter([1u32, 2, 0, 4].map(Ok));
        let answers: Vec<Result<u32, Status>> = answer_each(requests, |n| async move {
            if n == 0 {
                Err(Status::invalid_argument("items[0]: zero"))
            } else {
                Ok(tonic::Response::new(n * 10))
            }
        })
        .collect()
        .await;
        assert_eq!(answers.len(), 3);
        assert_eq!(answers[0].as_ref().unwrap(), &10);
        assert_eq!(answers[1].as_ref().unwrap(), &20);
        let status = answers[2].as_ref().unwrap_err();
        assert_eq!(status.code(), Code::InvalidArgument);
        assert_eq!(status.message(), "messages[2]: items[0]: zero");
    }

    #[tokio::test]
    async fn a_slow_reader_holds_the_requests_back() {
        let handled = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&handled);
        let requests = tokio_stream::iter((0..1000u32).map(Ok));
        let mut answers = answer_each(requests, move |n| {
            let counter = Arc::clone(&counter);
            async move {
                counter.fetch_add(1, Ordering::SeqCst);
                Ok(tonic::Response::new(n))
            }
        });
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        // IN_FLIGHT answers queued, one more computed and waiting to be sent.
        assert!(handled.load(Ordering::SeqCst) <= IN_FLIGHT + 1);
        let mut seen = 0;
        while let Some(answer) = answers.next().await {
            assert_eq!(answer.unwrap(), seen);
            seen += 1;
        }
        assert_eq!(seen, 1000);
    }

    #[tokio::test]
    async fn an_answer_holds_its_memory_until_the_next_is_taken() {
        let budget = crate::budget::MemoryBudget::new(1000, 1000, 1 << 20);
        let reserve = budget.clone();
        let mut answers = answer_each(tokio_stream::iter((0..3u32).map(Ok)), move |n| {
            let reserved = reserve.take(100).expect("room");
            async move { Ok(reserved.answer(n)) }
        });
        assert_eq!(answers.next().await.unwrap().unwrap(), 0);
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        // The one taken (maybe still being sent) and the two waiting.
        assert_eq!(budget.in_flight(), 300);
        assert_eq!(answers.next().await.unwrap().unwrap(), 1);
        assert_eq!(budget.in_flight(), 200);
        assert_eq!(answers.next().await.unwrap().unwrap(), 2);
        assert_eq!(budget.in_flight(), 100);
        assert!(answers.next().await.is_none());
        assert_eq!(budget.in_flight(), 0);
    }

    #[tokio::test]
    async fn a_malformed_request_message_is_invalid_argument() {
        let requests = tokio_stream::iter([Err::<u32, _>(Status::internal(
            "failed to decode Protobuf message: buffer underflow",
        ))]);
        let answers: Vec<_> = answer_each(requests, |n| async move { Ok(tonic::Response::new(n)) })
            .collect()
            .await;
        assert_eq!(
            answers[0].as_ref().unwrap_err().code(),
            Code::InvalidArgument
        );
    }
}

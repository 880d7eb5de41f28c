//! Helpers shared by the services' end-to-end tests.

use tonic::service::Routes;
use tonic::transport::Channel;
use tonic::{Code, Status};

use crate::server::{spawn, RunningServer, ServerConfig, Services};

/// Serves the gRPC service `name`, whose routes `routes` builds from the loopback
/// configuration (its message limit, its memory budget), on an ephemeral loopback
/// port, and opens a channel to it.
pub async fn serve_on_loopback(
    name: &'static str,
    routes: impl FnOnce(&ServerConfig) -> Routes,
) -> (RunningServer, Channel) {
    let config = ServerConfig::loopback();
    let routes = routes(&config);
    let server = spawn(config, Services::new(routes, &[name]))
        .await
        .expect("server starts");
    let channel = Channel::from_shared(format!("http://{}", server.addr))
        .expect("valid address")
        .connect()
        .await
        .expect("client connects");
    (server, channel)
}

/// Asserts that `result` failed with INVALID_ARGUMENT carrying one BadRequest
/// field violation that the message spells out (`<field>: <reason>`), and
/// that the message contains every one of `words` (the offending item and
/// the reason).
#[track_caller]
pub fn assert_invalid<T: std::fmt::Debug>(result: Result<T, Status>, words: &[&str]) {
    use tonic_types::StatusExt;
    let status = result.expect_err("the request must fail");
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    // The structured details name the same item the message does.
    let bad = status
        .get_details_bad_request()
        .unwrap_or_else(|| panic!("{status:?} lacks BadRequest details"));
    assert_eq!(bad.field_violations.len(), 1, "{bad:?}");
    let violation = &bad.field_violations[0];
    assert_eq!(
        status.message(),
        format!("{}: {}", violation.field, violation.description)
    );
    for word in words {
        assert!(
            status.message().contains(word),
            "message {:?} lacks {word:?}",
            status.message()
        );
    }
}

/// Asserts that `result` failed with INVALID_ARGUMENT whose BadRequest
/// details carry one field violation per entry of `expected`, in order: its
/// field path and a word its description contains. The message names the
/// first bad item and counts the others (`(and N more)`).
#[track_caller]
pub fn assert_invalid_items<T: std::fmt::Debug>(
    result: Result<T, Status>,
    expected: &[(&str, &str)],
) {
    use tonic_types::StatusExt;
    let status = result.expect_err("the request must fail");
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    let bad = status
        .get_details_bad_request()
        .unwrap_or_else(|| panic!("{status:?} lacks BadRequest details"));
    let fields: Vec<&str> = bad
        .field_violations
        .iter()
        .map(|v| v.field.as_str())
        .collect();
    let wanted: Vec<&str> = expected.iter().map(|(field, _)| *field).collect();
    assert_eq!(fields, wanted, "{status:?}");
    for (violation, (_, word)) in bad.field_violations.iter().zip(expected) {
        assert!(
            violation.description.contains(word),
            "{violation:?} lacks {word:?}"
        );
    }
    let first = &bad.field_violations[0];
    let more = match expected.len() {
        1 => String::new(),
        n => format!(" (and {} more)", n - 1),
    };
    assert_eq!(
        status.message(),
        format!("{}: {}{more}", first.field, first.description)
    );
}

/// Checks the health service of `server` for `service`: SERVING while up,
/// NOT_FOUND for an unknown name, NOT_SERVING as soon as shutdown starts (seen
/// on a Watch stream opened before), and a shutdown that completes once the
/// last stream is gone.
pub async fn check_health_and_graceful_shutdown(server: RunningServer, service: &str) {
    use std::time::Duration;
    use tonic_health::pb::health_check_response::ServingStatus;
    use tonic_health::pb::{health_client::HealthClient, HealthCheckRequest};

    let channel = Channel::from_shared(format!("http://{}", server.addr))
        .expect("valid address")
        .connect()
        .await
        .expect("connects");
    let mut health = HealthClient::new(channel);
    let request = |name: &str| HealthCheckRequest {
        service: name.to_string(),
    };
    let reply = health.check(request(service)).await.expect("check");
    assert_eq!(reply.into_inner().status(), ServingStatus::Serving);
    let unknown = health.check(request("no.such.Service")).await;
    assert_eq!(unknown.expect_err("unknown service").code(), Code::NotFound);

    let mut watch = health
        .watch(request(service))
        .await
        .expect("watch")
        .into_inner();
    let first = watch.message().await.expect("stream").expect("a status");
    assert_eq!(first.status(), ServingStatus::Serving);
    let shutdown = tokio::spawn(server.shutdown());
    let next = tokio::time::timeout(Duration::from_secs(5), watch.message())
        .await
        .expect("health changes when shutdown starts")
        .expect("stream")
        .expect("a status");
    assert_eq!(next.status(), ServingStatus::NotServing);
    drop(watch);
    tokio::time::timeout(Duration::from_secs(10), shutdown)
        .await
        .expect("shutdown finishes within its grace period")
        .expect("task")
        .expect("clean shutdown");
}

/// Polls a preferans worker's `Status` until no solver thread is busy (at most
/// 10 s, else panics) and returns that status: after a cancel, the search
/// must stop on the worker.
pub async fn wait_until_worker_idle(addr: &str) -> crate::proto::preferans::v1::StatusResponse {
    use crate::proto::preferans::v1 as pb;
    let mut client = pb::preferans_worker_service_client::PreferansWorkerServiceClient::connect(
        format!("http://{addr}"),
    )
    .await
    .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let status = client
            .status(pb::StatusRequest {})
            .await
            .unwrap()
            .into_inner();
        if status.threads.iter().all(|t| !t.busy) {
            return status;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "worker still busy after cancel"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// Polls the coordinator's `ListWorkers` until `done` holds for the list and
/// returns that list; panics after `within`, naming `what` and the last list.
pub async fn wait_for_workers(
    client: &mut crate::proto::preferans::v1::coordinator_service_client::CoordinatorServiceClient<
        tonic::transport::Channel,
    >,
    within: std::time::Duration,
    what: &str,
    done: impl Fn(&[crate::proto::preferans::v1::WorkerInfo]) -> bool,
) -> Vec<crate::proto::preferans::v1::WorkerInfo> {
    let deadline = std::time::Instant::now() + within;
    loop {
        let workers = client
            .list_workers(crate::proto::preferans::v1::ListWorkersRequest {})
            .await
            .unwrap()
            .into_inner()
            .workers;
        if done(&workers) {
            return workers;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting for {what}: {workers:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

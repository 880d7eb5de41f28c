//! The worker's Prometheus series: per solver thread, read from the pool's
//! counters at each scrape.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use crate::solver_pool::SolverPool;

/// Exposes the pool's counters as Prometheus series (call once per process).
pub fn register_metrics(pool: Arc<SolverPool>) {
    use deckhand::metrics::{describe, register_collector, Sample};
    describe(
        "deckhand_worker_layouts_solved_total",
        "counter",
        "layouts solved by each solver thread",
    );
    describe(
        "deckhand_worker_search_nodes_total",
        "counter",
        "search nodes visited by each solver thread (cards tried)",
    );
    describe(
        "deckhand_worker_table_fill",
        "gauge",
        "share of transposition-table entries in use",
    );
    describe(
        "deckhand_worker_table_bytes_in_use",
        "gauge",
        "bytes of the transposition table in use as of each thread's last piece of work (it grows when that pays, and returns to its first size for an analysis of another view)",
    );
    describe(
        "deckhand_worker_table_shrinks_total",
        "counter",
        "times the transposition table was returned to its first size",
    );
    describe(
        "deckhand_worker_table_hit_rate",
        "gauge",
        "transposition-table hits per probe since the table was created",
    );
    describe(
        "deckhand_worker_trumps_held",
        "gauge",
        "1 for the strain each thread's table holds",
    );
    describe(
        "deckhand_worker_busy",
        "gauge",
        "1 while a thread is solving",
    );
    register_collector(move || {
        let mut samples = vec![Sample {
            name: "deckhand_worker_table_shrinks_total",
            labels: Vec::new(),
            value: pool.table_shrinks.load(Ordering::Relaxed) as f64,
        }];
        for (i, slot) in pool.slots.iter().enumerate() {
            let thread = vec![("thread".to_string(), i.to_string())];
            let probes = slot.probes.load(Ordering::Relaxed);
            let hits = slot.hits.load(Ordering::Relaxed);
            let mut push = |name, value: f64| {
                samples.push(Sample {
                    name,
                    labels: thread.clone(),
                    value,
                });
            };
            push(
                "deckhand_worker_layouts_solved_total",
                slot.layouts.load(Ordering::Relaxed) as f64,
            );
            push(
                "deckhand_worker_search_nodes_total",
                slot.nodes.load(Ordering::Relaxed) as f64,
            );
            push(
                "deckhand_worker_table_fill",
                f64::from_bits(slot.fill.load(Ordering::Relaxed)),
            );
            push(
                "deckhand_worker_table_bytes_in_use",
                slot.table_bytes_in_use.load(Ordering::Relaxed) as f64,
            );
            push(
                "deckhand_worker_table_hit_rate",
                if probes == 0 {
                    0.0
                } else {
                    hits as f64 / probes as f64
                },
            );
            push(
                "deckhand_worker_busy",
                f64::from(u8::from(slot.busy.load(Ordering::Relaxed))),
            );
            if let Some(strain) = slot.held() {
                let mut labels = thread.clone();
                labels.push(("trumps".to_string(), strain.to_string()));
                samples.push(Sample {
                    name: "deckhand_worker_trumps_held",
                    labels,
                    value: 1.0,
                });
            }
        }
        samples
    });
}

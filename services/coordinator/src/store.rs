//! Where jobs live: a redb database in `--data-dir` (durable across a
//! `kill -9`: every commit is fsynced), or the same database in memory.
//!
//! Tables:
//! - `jobs`: job id → [`JobRecord`] (the problems, the state, each finished
//!   problem's result);
//! - `chunks`: (job id, problem index, chunk index) → the declarer tricks of
//!   every layout of the chunk (layout-major, one byte per candidate opening).
//!   A chunk is written once, when all its layouts are in, and its presence is
//!   what marks it done: results and "done" are one atomic commit.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;
use deckhand::proto::preferans::v1 as pb;
use prost::Message;
use redb::backends::InMemoryBackend;
use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};

const JOBS: TableDefinition<u64, &[u8]> = TableDefinition::new("jobs");
const CHUNKS: TableDefinition<(u64, u32, u32), &[u8]> = TableDefinition::new("chunks");
const META: TableDefinition<&str, u64> = TableDefinition::new("meta");

/// Bumped when the stored layout changes; a data dir of another version is refused.
const SCHEMA_VERSION: u64 = 1;
/// The database file inside the data dir.
pub const FILE_NAME: &str = "coordinator.redb";

/// One job as stored.
#[derive(Clone, PartialEq, Message)]
pub struct JobRecord {
    /// The problems, validated, with their layout range filled in.
    #[prost(message, repeated, tag = "1")]
    pub problems: Vec<pb::Problem>,
    #[prost(string, tag = "2")]
    pub request_id: String,
    /// QUEUED until the job ends (RUNNING is not stored: it is QUEUED with work done).
    #[prost(enumeration = "pb::AnalysisState", tag = "3")]
    pub state: i32,
    /// Results of the finished problems, by problem index.
    #[prost(btree_map = "uint32, message", tag = "4")]
    pub results: BTreeMap<u32, pb::AnalysisResult>,
    #[prost(string, tag = "5")]
    pub error: String,
    #[prost(int64, tag = "6")]
    pub submitted_unix: i64,
    #[prost(int64, tag = "7")]
    pub ended_unix: i64,
    /// Layouts per chunk, fixed for the job so a restart with another
    /// `--chunk-size` still finds its chunks.
    #[prost(uint32, tag = "8")]
    pub chunk_size: u32,
    /// An AnalyzeAllFoe job: it lives only as long as its client's stream.
    #[prost(bool, tag = "9")]
    pub ephemeral: bool,
    /// Each problem's layout order, by problem index, fixed for the job so a
    /// restart finds its chunks' layouts (see `jobs::prepare`). Empty in records
    /// from before orders: the standard one.
    #[prost(message, repeated, tag = "10")]
    pub layout_orders: Vec<StoredOrder>,
}

/// A problem's layout order as `SolveLayoutsRequest.layout_order` and
/// `layout_group` carry it (records from before groups: none).
#[derive(Clone, PartialEq, Message)]
pub struct StoredOrder {
    #[prost(uint32, repeated, tag = "1")]
    pub cards: Vec<u32>,
    #[prost(uint32, tag = "2")]
    pub group: u32,
}

/// The jobs database.
pub struct Store {
    db: Database,
    /// In a data dir (not in memory).
    durable: bool,
}

fn storage(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow::anyhow!("job store: {e}")
}

impl Store {
    /// Opens (or creates) the store in `dir`. Fails with a clear message when the
    /// directory cannot be created or written, or the file is not a store of ours.
    pub fn open(dir: &Path) -> anyhow::Result<Store> {
        std::fs::create_dir_all(dir).with_context(|| {
            format!("--data-dir {}: cannot create the directory", dir.display())
        })?;
        let path = dir.join(FILE_NAME);
        let db = Database::create(&path).map_err(|e| {
            anyhow::anyhow!(
                "--data-dir {}: cannot open {} (not writable, corrupt, or in use by another coordinator): {e}",
                dir.display(),
                path.display()
            )
        })?;
        let store = Store { db, durable: true };
        store.init().with_context(|| {
            format!(
                "--data-dir {}: unusable store {}",
                dir.display(),
                path.display()
            )
        })?;
        Ok(store)
    }

    /// A store in memory (no `--data-dir`): lost when the process ends.
    pub fn memory() -> Store {
        let db = Database::builder()
            .create_with_backend(InMemoryBackend::new())
            .expect("an in-memory database opens");
        let store = Store { db, durable: false };
        store.init().expect("an in-memory database is writable");
        store
    }

    /// Creates the tables and checks the schema version (a write, so an
    /// unwritable file fails here, at start).
    fn init(&self) -> anyhow::Result<()> {
        let tx = self.db.begin_write().map_err(storage)?;
        {
            let mut meta = tx.open_table(META).map_err(storage)?;
            let version = meta
                .get("schema_version")
                .map_err(storage)?
                .map(|v| v.value());
            match version {
                None => {
                    meta.insert("schema_version", SCHEMA_VERSION)
                        .map_err(storage)?;
                }
                Some(SCHEMA_VERSION) => {}
                Some(v) => anyhow::bail!(
                    "schema version {v}, this coordinator reads version {SCHEMA_VERSION}"
                ),
            }
            tx.open_table(JOBS).map_err(storage)?;
            tx.open_table(CHUNKS).map_err(storage)?;
        }
        tx.commit().map_err(storage)?;
        Ok(())
    }

    /// Every stored job.
    pub fn jobs(&self) -> anyhow::Result<Vec<(u64, JobRecord)>> {
        let tx = self.db.begin_read().map_err(storage)?;
        let table = tx.open_table(JOBS).map_err(storage)?;
        let mut jobs = Vec::new();
        for entry in table.iter().map_err(storage)? {
            let (id, bytes) = entry.map_err(storage)?;
            let record = JobRecord::decode(bytes.value())
                .map_err(|e| anyhow::anyhow!("job {}: undecodable record: {e}", id.value()))?;
            jobs.push((id.value(), record));
        }
        Ok(jobs)
    }

    /// Writes a job's record (new or updated).
    pub fn put_job(&self, id: u64, record: &JobRecord) -> anyhow::Result<()> {
        let tx = self.db.begin_write().map_err(storage)?;
        tx.open_table(JOBS)
            .map_err(storage)?
            .insert(id, record.encode_to_vec().as_slice())
            .map_err(storage)?;
        tx.commit().map_err(storage)
    }

    /// Deletes a job and its chunks.
    pub fn delete_job(&self, id: u64) -> anyhow::Result<()> {
        let tx = self.db.begin_write().map_err(storage)?;
        tx.open_table(JOBS)
            .map_err(storage)?
            .remove(id)
            .map_err(storage)?;
        tx.open_table(CHUNKS)
            .map_err(storage)?
            .retain_in((id, 0, 0)..=(id, u32::MAX, u32::MAX), |_, _| false)
            .map_err(storage)?;
        tx.commit().map_err(storage)
    }

    /// Whether the store is in a data dir, and outlives the process.
    pub fn is_durable(&self) -> bool {
        self.durable
    }

    /// Deletes the stored chunks of one problem.
    pub fn delete_chunks(&self, job: u64, problem: u32) -> anyhow::Result<()> {
        let tx = self.db.begin_write().map_err(storage)?;
        tx.open_table(CHUNKS)
            .map_err(storage)?
            .retain_in((job, problem, 0)..=(job, problem, u32::MAX), |_, _| false)
            .map_err(storage)?;
        tx.commit().map_err(storage)
    }

    /// Stores a finished chunk. Returns false (and changes nothing) when it is
    /// already stored: a chunk is counted once.
    pub fn commit_chunk(
        &self,
        job: u64,
        problem: u32,
        chunk: u32,
        tricks: &[u8],
    ) -> anyhow::Result<bool> {
        let tx = self.db.begin_write().map_err(storage)?;
        let fresh = {
            let mut table = tx.open_table(CHUNKS).map_err(storage)?;
            let key = (job, problem, chunk);
            if table.get(key).map_err(storage)?.is_some() {
                false
            } else {
                table.insert(key, tricks).map_err(storage)?;
                true
            }
        };
        if fresh {
            tx.commit().map_err(storage)?;
        } else {
            tx.abort().map_err(storage)?;
        }
        Ok(fresh)
    }

    /// The stored chunks of one problem: (chunk index, tricks), in order.
    pub fn chunks(&self, job: u64, problem: u32) -> anyhow::Result<Vec<(u32, Vec<u8>)>> {
        let tx = self.db.begin_read().map_err(storage)?;
        let table = tx.open_table(CHUNKS).map_err(storage)?;
        let mut chunks = Vec::new();
        for entry in table
            .range((job, problem, 0)..=(job, problem, u32::MAX))
            .map_err(storage)?
        {
            let (key, value) = entry.map_err(storage)?;
            chunks.push((key.value().2, value.value().to_vec()));
        }
        Ok(chunks)
    }

    /// The indices of the stored chunks of one problem.
    pub fn chunk_indices(&self, job: u64, problem: u32) -> anyhow::Result<Vec<u32>> {
        let tx = self.db.begin_read().map_err(storage)?;
        let table = tx.open_table(CHUNKS).map_err(storage)?;
        let mut indices = Vec::new();
        for entry in table
            .range((job, problem, 0)..=(job, problem, u32::MAX))
            .map_err(storage)?
        {
            indices.push(entry.map_err(storage)?.0.value().2);
        }
        Ok(indices)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chunk_is_stored_once_and_jobs_round_trip() {
        let store = Store::memory();
        let record = JobRecord {
            request_id: "r1".into(),
            chunk_size: 10,
            ..JobRecord::default()
        };
        store.put_job(7, &record).unwrap();
        assert!(store.commit_chunk(7, 0, 1, &[1, 2]).unwrap());
        assert!(!store.commit_chunk(7, 0, 1, &[9, 9]).unwrap());
        assert!(store.commit_chunk(7, 1, 0, &[3]).unwrap());
        assert_eq!(store.chunks(7, 0).unwrap(), vec![(1, vec![1, 2])]);
        assert_eq!(store.chunk_indices(7, 1).unwrap(), vec![0]);
        store.delete_chunks(7, 1).unwrap();
        assert!(store.chunk_indices(7, 1).unwrap().is_empty());
        assert_eq!(store.chunk_indices(7, 0).unwrap(), vec![1]);
        assert_eq!(store.jobs().unwrap(), vec![(7, record)]);
        store.delete_job(7).unwrap();
        assert!(store.jobs().unwrap().is_empty());
        assert!(store.chunks(7, 0).unwrap().is_empty());
    }

    #[test]
    fn a_file_that_is_not_a_store_is_refused() {
        let dir = std::env::temp_dir().join(format!("deckhand-store-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(FILE_NAME), vec![0x5a; 8192]).unwrap();
        let error = Store::open(&dir).err().expect("garbage is refused");
        assert!(format!("{error:#}").contains("--data-dir"), "{error:#}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

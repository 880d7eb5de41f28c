//! The memory of a transposition table: a header page, then the buckets, all zeroed
//! (every slot empty) and touched only where used.
//!
//! Either private to the process (an anonymous mapping on Linux), or a table file:
//! a shared mapping of a file, which several processes on one host open to search
//! with one table, and which outlives them (a worker restarted on it starts warm).
//!
//! The header names the file's format, and holds what every user of the table
//! shares: the search generation, the number of occupied slots, and how many buckets
//! are in use (a table file grows for all its processes at once).

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicU64, AtomicU8, AtomicUsize};

use thiserror::Error;

use super::tt::Bucket;

/// The header's size: one page, so the buckets start page-aligned.
const HEADER_BYTES: usize = 4096;

/// The first word of a table file.
const MAGIC: u64 = u64::from_le_bytes(*b"DHPREFTT");

/// The format of a table file's entries: the key, the slot layout, the bucket index
/// and the strain tags. Bump it with any change to them, so that a file written by
/// another build is refused rather than read wrongly (`tt::tests::format_is_pinned`
/// fails until then). Bump it too when a build may have stored wrong entries: format
/// 8 refuses the files of builds whose trump-game entries (class entries, and the
/// reliance words of own entries) could rest on a group of equivalent cards that did
/// not count as relied on as a whole (see search.rs).
pub(crate) const TABLE_FORMAT: u64 = 8;

#[repr(C)]
pub(crate) struct Header {
    magic: AtomicU64,
    format: AtomicU64,
    /// Buckets after the header.
    buckets: AtomicU64,
    /// Search generation, advanced by every solve of every user.
    pub generation: AtomicU8,
    /// Occupied slots, as of the last finished solve of each user.
    pub used: AtomicUsize,
    /// The buckets in use, minus one (an index mask): the first ones (see `tt::Table`).
    pub mask: AtomicUsize,
    /// When a user began doubling or shrinking the buckets in use (seconds since the
    /// Unix epoch), or 0 (see `tt::Table::while_claimed`).
    pub growing_since: AtomicU64,
}

const _: () = assert!(std::mem::size_of::<Header>() <= HEADER_BYTES);

/// Why a table file could not be opened.
#[derive(Debug, Error)]
pub enum TableFileError {
    #[error("table file {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a table file of this build's format {TABLE_FORMAT} ({reason}): remove it once no process uses it, or name another")]
    Format { path: PathBuf, reason: String },
    #[error("table file {path} holds {found_mib} MiB of entries, not the {wanted_mib} MiB asked for: every process sharing it must ask for the same size")]
    Size {
        path: PathBuf,
        found_mib: u64,
        wanted_mib: u64,
    },
    #[error("table file {path} is {reason}: only this user may write a table, whose entries every process on it trusts")]
    NotPrivate { path: PathBuf, reason: String },
    #[error("table files need Linux")]
    Unsupported,
}

/// A table's header and `len` buckets, in one mapping (or allocation).
pub(crate) struct TableMemory {
    start: std::ptr::NonNull<u8>,
    len: usize,
}

// SAFETY: the memory is owned by this value (or, for a file, mapped by it), and is only
// ever read and written through atomics.
unsafe impl Send for TableMemory {}
unsafe impl Sync for TableMemory {}

impl TableMemory {
    /// Private zeroed memory for `len` buckets, of which the first `in_use` are in use.
    ///
    /// On Linux it is an anonymous mapping of its own: the kernel hands out zeroed pages
    /// on first touch, and unmapping gives them back at once. Allocators do not promise
    /// either: mimalloc (the service binaries' allocator) wrote the whole block when it
    /// reused freed memory (0.17 s for 64 MB), and glibc keeps freed blocks of a few
    /// megabytes in its arenas (the reason the services use mimalloc).
    pub fn private(len: usize, in_use: usize) -> TableMemory {
        let memory = TableMemory {
            start: sys::zeroed(bytes_for(len)),
            len,
        };
        memory.header().mask.store(in_use - 1, Relaxed);
        memory
    }

    /// The table file at `path` with `len` buckets: created (mode 0600) if missing or
    /// empty, with the first `in_use` in use, else checked to hold this format and size.
    pub fn file(path: &Path, len: usize, in_use: usize) -> Result<TableMemory, TableFileError> {
        let start = sys::map_file(path, len, in_use)?;
        Ok(TableMemory { start, len })
    }

    pub fn header(&self) -> &Header {
        // SAFETY: the memory starts with a header's bytes, zeroed or written as a
        // `Header` (atomic integers: any bits are a valid value).
        unsafe { &*self.start.as_ptr().cast::<Header>() }
    }
}

impl std::ops::Deref for TableMemory {
    type Target = [Bucket];

    fn deref(&self) -> &[Bucket] {
        // SAFETY: `len` buckets lie after the header, zeroed when first mapped, and an
        // all-zero Bucket is `Bucket::default()` (atomic integers: empty slots). They
        // are only ever changed through atomics, by this process or another mapping
        // the same file.
        unsafe {
            let buckets = self.start.as_ptr().add(HEADER_BYTES).cast::<Bucket>();
            std::slice::from_raw_parts(buckets, self.len)
        }
    }
}

impl Drop for TableMemory {
    fn drop(&mut self) {
        // SAFETY: made by `sys::zeroed` or `sys::map_file` for these buckets, freed once.
        unsafe { sys::free(self.start, bytes_for(self.len)) }
    }
}

/// Bytes of a header and `len` buckets.
fn bytes_for(len: usize) -> usize {
    checked_bytes_for(len as u64).expect("table size fits memory")
}

/// Bytes of a header and `len` buckets, if that fits the address space.
fn checked_bytes_for(len: u64) -> Option<usize> {
    usize::try_from(len)
        .ok()?
        .checked_mul(std::mem::size_of::<Bucket>())?
        .checked_add(HEADER_BYTES)
}

#[cfg(target_os = "linux")]
mod sys {
    use std::fs::{File, OpenOptions};
    use std::io::Read;
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    use std::path::Path;
    use std::ptr::NonNull;
    use std::sync::atomic::Ordering::Relaxed;

    use super::{
        bytes_for, checked_bytes_for, Header, TableFileError, HEADER_BYTES, MAGIC, TABLE_FORMAT,
    };

    pub fn zeroed(bytes: usize) -> NonNull<u8> {
        map_aligned(bytes, None).unwrap_or_else(|_| {
            let layout = std::alloc::Layout::from_size_align(bytes, HEADER_BYTES)
                .expect("table size fits memory");
            std::alloc::handle_alloc_error(layout)
        })
    }

    pub fn map_file(path: &Path, len: usize, in_use: usize) -> Result<NonNull<u8>, TableFileError> {
        let io = |source| TableFileError::Io {
            path: path.to_owned(),
            source,
        };
        let bytes = bytes_for(len);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(path)
            .map_err(io)?;
        // One process at a time creates or checks the file.
        let _lock = FileLock::new(&file).map_err(io)?;
        let metadata = file.metadata().map_err(io)?;
        check_private(path, &metadata)?;
        let found = metadata.len();
        // Only an empty file is made a table: any other is checked, never overwritten.
        let fresh = found == 0;
        if fresh {
            file.set_len(bytes as u64).map_err(io)?;
        } else {
            check_header(path, &mut file, found, len)?;
        }
        let start = map_aligned(bytes, Some(&file)).map_err(io)?;
        // SAFETY: the mapping starts with a header's bytes (zeroed in a new file, else
        // checked to be this format's).
        let header = unsafe { &*start.as_ptr().cast::<Header>() };
        if fresh {
            header.mask.store(in_use - 1, Relaxed);
            header.buckets.store(len as u64, Relaxed);
            header.format.store(TABLE_FORMAT, Relaxed);
            header.magic.store(MAGIC, Relaxed);
        } else {
            let in_use = header.mask.load(Relaxed).wrapping_add(1);
            if !in_use.is_power_of_two() || in_use > len {
                // SAFETY: mapped above for these buckets, and not used since.
                unsafe { free(start, bytes) };
                return Err(TableFileError::Format {
                    path: path.to_owned(),
                    reason: format!("its header has {in_use} of its {len} buckets in use"),
                });
            }
        }
        // Each first touch of a page is a page fault (about 8 ms of kernel time per
        // 2 MB page on our virtual machines, 0.25 s for 64 MB), which the searches would
        // pay as the table grows, inside the first analyses. The pages are faulted in
        // here instead, at process start, without changing the contents (other
        // processes may be using them). Kernels before 5.14 refuse it: then the pages
        // come on first touch.
        // SAFETY: the range is the mapping just made; populating changes no contents.
        unsafe { libc::madvise(start.as_ptr().cast(), bytes, libc::MADV_POPULATE_WRITE) };
        Ok(start)
    }

    /// Checks that the file is ours and that no one else may write it: a forged entry
    /// would be a wrong answer.
    fn check_private(path: &Path, metadata: &std::fs::Metadata) -> Result<(), TableFileError> {
        // SAFETY: geteuid has no preconditions.
        let me = unsafe { libc::geteuid() };
        let reason = if !metadata.is_file() {
            "not a regular file".to_string()
        } else if metadata.uid() != me {
            format!("owned by user {}", metadata.uid())
        } else if metadata.mode() & 0o022 != 0 {
            format!("writable by others (mode {:o})", metadata.mode() & 0o777)
        } else {
            return Ok(());
        };
        Err(TableFileError::NotPrivate {
            path: path.to_owned(),
            reason,
        })
    }

    /// Checks that `file`, `found` bytes long, is a table file of this format with
    /// `len` buckets.
    fn check_header(
        path: &Path,
        file: &mut File,
        found: u64,
        len: usize,
    ) -> Result<(), TableFileError> {
        let not_a_table = |reason: String| TableFileError::Format {
            path: path.to_owned(),
            reason,
        };
        let mut words = [0u8; 24];
        if found < HEADER_BYTES as u64 || file.read_exact(&mut words).is_err() {
            return Err(not_a_table(format!("{found} bytes, no table header")));
        }
        let word = |i: usize| u64::from_le_bytes(words[8 * i..8 * i + 8].try_into().unwrap());
        let (magic, format, buckets) = (word(0), word(1), word(2));
        if magic != MAGIC {
            return Err(not_a_table("no table header".into()));
        }
        if format != TABLE_FORMAT {
            return Err(not_a_table(format!("it holds format {format}")));
        }
        if checked_bytes_for(buckets).map(|b| b as u64) != Some(found) {
            return Err(not_a_table(format!(
                "{found} bytes long, where its header names {buckets} buckets"
            )));
        }
        if buckets != len as u64 {
            let mib = |b: u64| (b * std::mem::size_of::<super::Bucket>() as u64) >> 20;
            return Err(TableFileError::Size {
                path: path.to_owned(),
                found_mib: mib(buckets),
                wanted_mib: mib(len as u64),
            });
        }
        Ok(())
    }

    /// An exclusive `flock` on a file, released when dropped. (Closing the file would
    /// not release it: the mapping keeps the open file, and the lock with it.)
    struct FileLock(std::os::fd::RawFd);

    impl FileLock {
        fn new(file: &File) -> std::io::Result<FileLock> {
            let fd = file.as_raw_fd();
            // SAFETY: flock on an open descriptor.
            if unsafe { libc::flock(fd, libc::LOCK_EX) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(FileLock(fd))
        }
    }

    impl Drop for FileLock {
        fn drop(&mut self) {
            // SAFETY: the descriptor is still open: the lock is dropped before the file.
            unsafe { libc::flock(self.0, libc::LOCK_UN) };
        }
    }

    /// A new mapping of `bytes`, private and anonymous, or shared of `file`, advised
    /// to use transparent huge pages before it is first written: random probes into a
    /// 64 MB table otherwise spend much of their time on TLB misses, and whatever
    /// touches a page first decides its size.
    ///
    /// It starts on a huge-page boundary: a file's huge pages map only at addresses
    /// that match their offset in the file. (A file on a tmpfs mount gets them when
    /// the mount has `huge=advise`, `huge=always` or `huge=within_size`;
    /// `transparent_hugepage/shmem_enabled` does not apply to /dev/shm, measured.
    /// Else a table file has small pages, which cost its searches about 30%.)
    fn map_aligned(bytes: usize, file: Option<&File>) -> std::io::Result<NonNull<u8>> {
        const HUGE: usize = 2 << 20;
        let reserved = bytes
            .checked_add(HUGE)
            .ok_or(std::io::ErrorKind::OutOfMemory)?;
        // SAFETY: a new inaccessible anonymous mapping, only to reserve addresses.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                reserved,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        let start = (ptr as usize).next_multiple_of(HUGE);
        let (flags, fd) = match file {
            Some(file) => (libc::MAP_SHARED, file.as_raw_fd()),
            None => (libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1),
        };
        // SAFETY: replaces part of the reservation just made (MAP_FIXED), with a
        // mapping of `bytes` at `start`, which lies inside it. A file is `bytes` long
        // and held open by the caller; another process truncating it would fault our
        // accesses: it is private to its owner (mode 0600) and documented as not to be
        // touched.
        let mapped = unsafe {
            libc::mmap(
                start as *mut libc::c_void,
                bytes,
                libc::PROT_READ | libc::PROT_WRITE,
                flags | libc::MAP_FIXED,
                fd,
                0,
            )
        };
        let error = (mapped == libc::MAP_FAILED).then(std::io::Error::last_os_error);
        // The reservation's unused head and tail (and all of it on failure) go back.
        let end = start + bytes;
        let unused = match error {
            None => [(ptr as usize, start), (end, ptr as usize + reserved)],
            Some(_) => [(ptr as usize, ptr as usize + reserved), (0, 0)],
        };
        for (from, to) in unused {
            if to > from {
                // SAFETY: unmaps addresses of the reservation that nothing uses.
                unsafe { libc::munmap(from as *mut libc::c_void, to - from) };
            }
        }
        if let Some(error) = error {
            return Err(error);
        }
        let huge_end = end / HUGE * HUGE;
        if huge_end > start {
            // SAFETY: the range lies inside the mapping; MADV_HUGEPAGE is only a hint
            // and does not change its contents. Failure is harmless and ignored.
            unsafe { libc::madvise(mapped, huge_end - start, libc::MADV_HUGEPAGE) };
        }
        Ok(NonNull::new(mapped.cast()).expect("mmap returned a null mapping"))
    }

    /// # Safety
    /// `start` is a mapping of `bytes` made by [`zeroed`] or [`map_file`], unmapped once.
    pub unsafe fn free(start: NonNull<u8>, bytes: usize) {
        // SAFETY: the caller passes a mapping of this size.
        unsafe { libc::munmap(start.as_ptr().cast(), bytes) };
    }
}

#[cfg(not(target_os = "linux"))]
mod sys {
    use std::alloc::Layout;
    use std::path::Path;
    use std::ptr::NonNull;

    use super::{TableFileError, HEADER_BYTES};

    fn layout(bytes: usize) -> Layout {
        Layout::from_size_align(bytes, HEADER_BYTES).expect("table size fits memory")
    }

    pub fn zeroed(bytes: usize) -> NonNull<u8> {
        // SAFETY: the layout has a non-zero size (a header at least).
        let ptr = unsafe { std::alloc::alloc_zeroed(layout(bytes)) };
        NonNull::new(ptr).unwrap_or_else(|| std::alloc::handle_alloc_error(layout(bytes)))
    }

    pub fn map_file(_: &Path, _: usize, _: usize) -> Result<NonNull<u8>, TableFileError> {
        Err(TableFileError::Unsupported)
    }

    /// # Safety
    /// `start` comes from [`zeroed`] with `bytes`, and is freed once.
    pub unsafe fn free(start: NonNull<u8>, bytes: usize) {
        // SAFETY: allocated by `zeroed` with this layout.
        unsafe { std::alloc::dealloc(start.as_ptr(), layout(bytes)) }
    }
}

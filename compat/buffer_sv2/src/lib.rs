//! # buffer_sv2 on spool's pool
//!
//! This crate is named `buffer_sv2` and has buffer_sv2 3.x's API, so that a
//! Stratum V2 build can run on [spool's pool](spool::pool) by swapping the
//! crate and changing nothing else. Stratum V2's codec (`codec_sv2` 7.x)
//! picks its buffer type inside its own crate (`with_buffer_pool` on:
//! `buffer_sv2::BufferPool<BufferFromSystemMemory>`, off:
//! `BufferFromSystemMemory`), so an outside pool cannot be handed to it: it
//! has to *be* `buffer_sv2`.
//!
//! ## Switching
//!
//! One line in the Stratum V2 workspace's (or application's) `Cargo.toml`:
//!
//! ```toml
//! [patch.crates-io]
//! buffer_sv2 = { git = "https://example.invalid/spool" } # or { path = ".../spool/compat/buffer_sv2" }
//! ```
//!
//! `[patch]` replaces a crate only by one with the same name and a
//! semver-compatible version: this one is 3.0.1, so it stands in for every
//! `buffer_sv2 = "3"` (or `"^3.0"`) requirement — codec_sv2 7.x, framing_sv2
//! 8.x and binary_sv2 7.x ask for `^3.0.0`. `cargo tree -i buffer_sv2`
//! shows the path or git source once the patch is in use. Builds on
//! buffer_sv2 2.x (codec_sv2 3.x) take `compat/buffer_sv2-2` beside this
//! crate, which re-exports its items; spool's docs/pool.md has the recipe
//! for each kind of build (crates.io, git, the Stratum workspace).
//!
//! ## What changes
//!
//! - **No 8-slot limit.** buffer_sv2's pool tracks 8 frames; a ninth live
//!   frame sends every following message to the heap until they all drop.
//!   spool's tracks 1024 by default and reuses any free gap, so frames held
//!   by the application (a queue of 16 shares, say) no longer push the
//!   decoder onto the heap.
//! - **No spinning drop.** buffer_sv2's `BufferPool` spins in `Drop` until
//!   every frame it handed out is gone — forever, if one of them is held by
//!   the dropping thread. Here a decoder or encoder may be dropped at any
//!   time: frames keep their bytes and the last one frees the arena.
//! - **Clones that are safe.** buffer_sv2's `Slice` derives `Clone`, which
//!   copies the handle: once the original drops, the pool reuses the bytes
//!   under the live clone (it reads what the next message wrote) and the
//!   slot's bit is left set, so the pool's `Drop` then spins forever. Here
//!   a clone shares the frame's span by reference count; the bytes stay as
//!   written until the last clone drops, and writing through a shared clone
//!   copies it first.
//! - [`Slice::len`] returns the frame's length (buffer_sv2's returns 0 for
//!   a pool frame), so binary_sv2's `GetSize` for `Slice` is right.
//! - `get_data_by_ref(len)` on the pool returns the first `len` pending
//!   bytes, as the trait says and `BufferFromSystemMemory` does (buffer_sv2's
//!   pool ignores `len` and returns them all; codec_sv2 asks for exactly
//!   what it reads either way).
//! - `AeadBuffer::truncate` never grows the pending message (buffer_sv2's
//!   sets its length to `start + len` even past its end).
//! - `Slice` is also `Sync`, derefs to `[u8]` and converts into
//!   `bytes::Bytes` without a copy: it is [`spool::pool::Slice`].
//!
//! The one difference in the API: buffer_sv2's public fields
//! (`Slice::index`, `Slice::shared_state`, `Slice::owned`,
//! `BufferPool::mode`) are not here. They are its 8-slot bookkeeping — the
//! slot a frame took, the pool's shared bit mask, the `Vec` of a frame that
//! went to the heap, the pool's back/front/heap mode — and have no
//! counterpart in spool's pool, whose `Slice` (the type here) holds a slot
//! and a span instead; fields cannot be computed on access, and exposing
//! the pool's own would let a caller break its release protocol. No crate
//! of Stratum V2 or sv2-apps reads them (their types, `SharedState` and
//! `PoolMode`, cannot even be named outside buffer_sv2); code that does
//! will not compile against this crate and should use [`Slice::is_pooled`]
//! and [`BufferPool::is_alloc_mode`].
//!
//! ## API
//!
//! | item | here |
//! |---|---|
//! | [`Buffer`] (`type Slice`, `get_writable`, `get_data_owned`, `get_data_by_ref`, `get_data_by_ref_`, `len`, `is_empty`, `danger_set_start`, `is_droppable`) | the same trait, item for item |
//! | [`BufferPool<T>`] (`new`, `is_back_mode`, `is_front_mode`, `is_alloc_mode`, `droppable`, `Buffer`, `AsRef`/`AsMut<[u8]>`, `AeadBuffer`, `Debug`, `Send`, `Sync`) | spool's pool; `T` kept for the type's name only |
//! | [`BufferFromSystemMemory`] (`new`, `Default`, `Buffer<Slice = Vec<u8>>`, `AsRef`/`AsMut<[u8]>`, `AeadBuffer`, `Debug`) | spool's `HeapBuffer` |
//! | [`Slice`] (`len`, `is_empty`, `Clone`, `From<Vec<u8>>`, `AsRef`/`AsMut<[u8]>`, `Index`/`IndexMut` by `usize` and ranges, `Debug`, `Send`) | [`spool::pool::Slice`] (one `Index`/`IndexMut` impl over every `SliceIndex<[u8]>`, which covers buffer_sv2's seven) |
//! | [`Write`], [`WriteError`] (impls for `Vec<u8>` and `&mut [u8]`) | the same |
//! | [`AeadBuffer`] | the same trait (`aead` 0.5's `Buffer`) |
//! | features `debug`, `fuzz` | accepted, no effect |
//!
//! ## What Stratum V2 uses
//!
//! Read from the crates.io sources of codec_sv2 7.0.0, framing_sv2 8.0.0,
//! binary_sv2 7.0.0 and noise_sv2 2.0.0, and from the roles in
//! `stratum-mining/sv2-apps`:
//!
//! - **codec_sv2**: `Buffer` (all of it: `get_writable`, `get_data_owned`,
//!   `get_data_by_ref`, `len`, `danger_set_start`, `is_droppable` in
//!   `droppable()`; `Buffer::Slice` as the frame type),
//!   `BufferPool<BufferFromSystemMemory>::new` and
//!   `BufferFromSystemMemory::new` (its buffer type, by feature),
//!   `AeadBuffer` (the bound on its Noise encoder and decoder, whose cipher
//!   calls `as_ref`, `as_mut`, `extend_from_slice` and `truncate`), `AsRef`
//!   on both buffers (its tests), and on frames `AsRef`, `AsMut`, `Clone`
//!   (its tests and examples) and `[..]` (its examples).
//! - **framing_sv2** (`with_buffer_pool`): `Slice` as the type of
//!   `HandshakeMessage`'s payload, built `From<Vec<u8>>`, read with
//!   `AsRef`.
//! - **binary_sv2** (`with_buffer_pool`): `GetSize for Slice` via
//!   `Slice::len`.
//! - **noise_sv2**: nothing of buffer_sv2's (it is generic over `aead`'s
//!   `Buffer`, which `AeadBuffer` is).
//! - **roles** (pool, translator, jd-client, jd-server, mining-device):
//!   `buffer_sv2::Slice` as the type parameter of their frames, sent
//!   between tasks (`Send`).
//!
//! # Examples
//!
//! ```
//! use buffer_sv2::{AeadBuffer, Buffer, BufferPool};
//!
//! let mut pool = BufferPool::new(1 << 16);
//! pool.get_writable(6).copy_from_slice(b"header");
//! pool.get_writable(4).copy_from_slice(b"body");
//! pool.danger_set_start(6); // an in-place cipher sees the chunk only
//! assert_eq!(pool.as_ref(), b"body");
//! AeadBuffer::truncate(&mut pool, 2);
//! pool.danger_set_start(0);
//! assert_eq!(pool.get_data_owned().as_ref(), b"headerbo");
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![doc(test(attr(deny(warnings))))]

extern crate alloc;

mod buffer;
mod on_spool;
mod pool;
mod system;
mod write;

pub use aead::Buffer as AeadBuffer;
pub use buffer::Buffer;
pub use pool::BufferPool;
pub use spool::pool::Slice;
pub use system::BufferFromSystemMemory;
pub use write::{Write, WriteError};

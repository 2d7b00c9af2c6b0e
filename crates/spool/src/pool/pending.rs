//! The pending message — written with [`reserve`](BufferPool::reserve),
//! not yet frozen — seen and shaped in place: read or patched
//! ([`pending`](BufferPool::pending), [`pending_ref`](BufferPool::pending_ref)),
//! cut short ([`truncate`](BufferPool::truncate)) or dropped
//! ([`discard`](BufferPool::discard)).
//!
//! A decoder that decrypts in place needs all of these: it appends a
//! sealed chunk, opens it where it lies, reads the plaintext through a
//! shared borrow and cuts off the tag. The pending bytes are
//! `msg_start..head` in the arena, or the spilled `Vec` once the message
//! moved to the heap; none of these methods moves them, and only
//! `truncate` and `discard` change their length (never growing it, so the
//! placement invariants of `gaps.rs` hold).

use super::BufferPool;

impl BufferPool {
    /// The first `min(len, pending)` bytes of the pending message, to read
    /// or patch (a header, say) before freezing it.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut pool = spool::pool::BufferPool::new(16);
    /// pool.reserve(4).copy_from_slice(b"?abc");
    /// pool.pending(1)[0] = 3; // patch a length header
    /// assert_eq!(pool.pending(99), b"\x03abc");
    /// ```
    #[doc(alias = "get_data_by_ref")]
    pub fn pending(&mut self, len: usize) -> &mut [u8] {
        let arena = self.arena();
        if let Some(v) = &mut self.spilled {
            let n = len.min(v.len());
            return &mut v[..n];
        }
        let n = len.min(self.head - self.msg_start);
        // SAFETY: the pending bytes lie in the arena in the free gap no
        // slice holds; `&mut self` is unique.
        unsafe { core::slice::from_raw_parts_mut(arena.add(self.msg_start), n) }
    }

    /// The first `min(len, pending)` bytes of the pending message, through
    /// a shared borrow: what [`pending`](Self::pending) gives to read only,
    /// for code that holds the pool by `&` (an `AsRef<[u8]>` view, say).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut pool = spool::pool::BufferPool::new(16);
    /// pool.reserve(3).copy_from_slice(b"abc");
    /// let pool = &pool;
    /// assert_eq!(pool.pending_ref(2), b"ab");
    /// assert_eq!(pool.pending_ref(usize::MAX), b"abc");
    /// ```
    #[doc(alias = "get_data_by_ref_")]
    #[must_use]
    pub fn pending_ref(&self, len: usize) -> &[u8] {
        if let Some(v) = &self.spilled {
            return &v[..len.min(v.len())];
        }
        let n = len.min(self.head - self.msg_start);
        // SAFETY: the pending bytes lie in the arena in the free gap no
        // slice holds; they are written only through `&mut self`, which
        // cannot exist while this borrow lives.
        unsafe { core::slice::from_raw_parts(self.arena().add(self.msg_start), n) }
    }

    /// Shortens the pending message to its first `len` bytes; no effect if
    /// it is not longer than that (like `Vec::truncate`). The cut bytes go
    /// back to the gap the message grows into.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut pool = spool::pool::BufferPool::new(64);
    /// pool.reserve(6).copy_from_slice(b"header");
    /// pool.reserve(16).fill(0xaa); // say, an authentication tag
    /// pool.truncate(6);
    /// pool.truncate(100); // longer: nothing happens
    /// assert_eq!(&pool.freeze()[..], b"header");
    /// ```
    pub fn truncate(&mut self, len: usize) {
        match &mut self.spilled {
            Some(v) => v.truncate(len),
            None => self.head = self.head.min(self.msg_start + len),
        }
    }

    /// Length of the pending (not yet frozen) message.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut pool = spool::pool::BufferPool::new(16);
    /// pool.reserve(3);
    /// assert_eq!(pool.len(), 3);
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        match &self.spilled {
            Some(v) => v.len(),
            None => self.head - self.msg_start,
        }
    }

    /// Whether the pending message is empty.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(spool::pool::BufferPool::new(16).is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the pending message has moved to the heap because no gap in
    /// the arena fits it (it will freeze into a heap slice; the next
    /// message tries the arena again).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut pool = spool::pool::BufferPool::new(8);
    /// pool.reserve(8);
    /// assert!(!pool.is_spilled());
    /// pool.reserve(1); // 9 bytes do not fit in 8
    /// assert!(pool.is_spilled());
    /// assert!(!pool.freeze().is_pooled());
    /// assert!(!pool.is_spilled());
    /// ```
    #[must_use]
    pub fn is_spilled(&self) -> bool {
        self.spilled.is_some()
    }

    /// Drops the pending message.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut pool = spool::pool::BufferPool::new(16);
    /// pool.reserve(3);
    /// pool.discard();
    /// assert!(pool.is_empty());
    /// ```
    pub fn discard(&mut self) {
        self.spilled = None;
        self.head = self.msg_start;
    }
}

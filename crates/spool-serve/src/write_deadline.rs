//! A connection whose client does not read what it is sent is cut.
//!
//! A client can send requests and never read the responses: once the
//! socket buffers are full, every write waits, and the connection would
//! keep its slot (and its buffers) for as long as the client likes —
//! `--max-connections` such clients lock everyone else out. This wrapper
//! of the socket (below TLS and below HTTP/1.1 and HTTP/2 alike) gives
//! the client `write_timeout` to take what the server has to send:
//!
//! ```text
//!   write → Pending ──► stalled since t ──► flush → Ready ──► not stalled
//!                           │
//!                           └─ t + write_timeout passed: every read,
//!                              write and flush fails with TimedOut,
//!                              and the connection ends
//! ```
//!
//! The clock starts at the first write the socket could not take and
//! stops only when a flush completes — when everything the server had to
//! send has gone to the kernel. Partial progress does not reset it, so a
//! client that reads a byte now and then cannot stretch it either. A
//! client reading at any reasonable rate never sees it: a response is at
//! most a few kilobytes, and the kernel's socket buffer takes it whole.
//!
//! While stalled, the deadline's timer holds the task's waker, so the
//! connection is woken and ended at the deadline even if nothing else
//! happens on it.

use std::future::Future as _;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

/// A byte stream that fails once a write has waited `limit` for the peer.
pub(crate) struct WriteDeadline<S> {
    inner: S,
    limit: Duration,
    /// Armed while a write waits; created on the first stall.
    timer: Option<Pin<Box<Sleep>>>,
    stalled: bool,
}

impl<S> WriteDeadline<S> {
    pub(crate) fn new(inner: S, limit: Duration) -> Self {
        WriteDeadline {
            inner,
            limit,
            timer: None,
            stalled: false,
        }
    }

    /// Starts the clock if it is not running; then whether the deadline
    /// has passed (an error to return) — registering the waker otherwise.
    fn stall(&mut self, cx: &mut Context<'_>) -> io::Result<()> {
        if !self.stalled {
            self.stalled = true;
            let deadline = Instant::now() + self.limit;
            match &mut self.timer {
                Some(timer) => timer.as_mut().reset(deadline),
                None => self.timer = Some(Box::pin(tokio::time::sleep_until(deadline))),
            }
        }
        self.check(cx)
    }

    /// While stalled: an error once the deadline has passed, else the
    /// waker registered with the timer.
    fn check(&mut self, cx: &mut Context<'_>) -> io::Result<()> {
        let Some(timer) = self.timer.as_mut().filter(|_| self.stalled) else {
            return Ok(());
        };
        if timer.as_mut().poll(cx).is_ready() {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client did not read the response in time",
            ));
        }
        Ok(())
    }

    /// Passes a write's result on, keeping the clock.
    fn watch<T>(
        &mut self,
        cx: &mut Context<'_>,
        result: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        if result.is_pending() {
            self.stall(cx)?;
        } else if self.stalled {
            self.check(cx)?;
        }
        result
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for WriteDeadline<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        this.check(cx)?;
        Pin::new(&mut this.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for WriteDeadline<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.inner).poll_write(cx, buf);
        this.watch(cx, result)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.inner).poll_write_vectored(cx, bufs);
        this.watch(cx, result)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.inner).poll_flush(cx);
        let result = this.watch(cx, result);
        if let Poll::Ready(Ok(())) = result {
            // Everything the server had to send is with the kernel.
            this.stalled = false;
        }
        result
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

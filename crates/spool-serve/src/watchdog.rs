//! Time limits of a connection that the socket cannot see: the HTTP/2
//! ones, and the wait for a first request.
//!
//! An HTTP/2 client can hold a connection without ever leaving a write
//! waiting on the socket: it reads every frame but keeps its flow-control
//! windows shut (`SETTINGS_INITIAL_WINDOW_SIZE = 0`), so the responses
//! wait inside the connection, not in the kernel ([`WriteDeadline`] sees
//! nothing); or it opens the connection and sends no request at all
//! (hyper's HTTP/1 header timeout does not apply to HTTP/2, nor to the
//! bytes read before the protocol is known). The watchdog keeps, for one
//! connection:
//!
//! - the start of every HTTP/2 request whose response has not been handed
//!   to the connection whole (its body not yet taken by hyper): the
//!   connection is **stalled** once the oldest is `response_limit` old
//!   (the body timeout, for a request body, plus the write timeout);
//! - when the connection last had no such request (its start, at first):
//!   it is **idle** once that is `idle_limit` ago (the header timeout, as
//!   for an idle HTTP/1.1 keep-alive connection).
//!
//! The first HTTP/1 request disarms it: from then on hyper's header
//! timeout bounds idleness and [`WriteDeadline`] bounds slow readers, and
//! [`Watchdog::expired`] returns `None` so that the connection's task
//! stops polling it (a future polled beside the connection is polled at
//! every wake-up, which an HTTP/1.1 connection would pay on every
//! request). Until then the task waits on it beside the connection; an
//! idle connection is closed politely (GOAWAY, then a bounded wait), a
//! stalled one at once.
//!
//! [`WriteDeadline`]: crate::write_deadline::WriteDeadline

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

/// Why a connection's time is up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Expiry {
    /// No request for `idle_limit`.
    Idle,
    /// A response not handed over within `response_limit`.
    Stalled,
}

/// The watchdog of one connection (see the module docs).
pub(crate) struct Watchdog {
    /// False once an HTTP/1 request has been seen.
    armed: AtomicBool,
    state: Mutex<State>,
    wake: Notify,
    idle_limit: Duration,
    response_limit: Duration,
}

struct State {
    /// Start times of the open HTTP/2 requests; `None` marks a free slot.
    /// At most the connection's concurrent streams are open at once.
    open: Vec<Option<Instant>>,
    /// When the connection last had no open request.
    idle_since: Instant,
    /// The deadline [`Watchdog::expired`] is waiting for, if any.
    waiting_until: Option<Instant>,
}

/// An open HTTP/2 request; dropping it (with the response body, or with
/// the request if it is cancelled) closes it.
pub(crate) struct Open {
    watchdog: Arc<Watchdog>,
    slot: usize,
}

impl Watchdog {
    pub(crate) fn new(idle_limit: Duration, response_limit: Duration) -> Arc<Watchdog> {
        Arc::new(Watchdog {
            armed: AtomicBool::new(true),
            state: Mutex::new(State {
                open: Vec::new(),
                idle_since: Instant::now(),
                waiting_until: None,
            }),
            wake: Notify::new(),
            idle_limit,
            response_limit,
        })
    }

    /// An HTTP/1 request arrived: the watchdog has nothing more to do.
    pub(crate) fn http1(&self) {
        if self.armed.load(Ordering::Relaxed) {
            self.armed.store(false, Ordering::Relaxed);
            self.wake.notify_one();
        }
    }

    /// An HTTP/2 request arrived: open until the returned guard drops.
    pub(crate) fn open(self: &Arc<Self>) -> Open {
        let mut state = self.lock();
        let now = Some(Instant::now());
        let slot = match state.open.iter().position(Option::is_none) {
            Some(free) => {
                state.open[free] = now;
                free
            }
            None => {
                state.open.push(now);
                state.open.len() - 1
            }
        };
        self.wake_if_sooner(&state);
        Open {
            watchdog: Arc::clone(self),
            slot,
        }
    }

    /// Waits until the connection's time is up, and says why; `None` once
    /// an HTTP/1 request has disarmed the watchdog.
    pub(crate) async fn expired(&self) -> Option<Expiry> {
        loop {
            let next = {
                let mut state = self.lock();
                let next = self.deadline(&state);
                state.waiting_until = next.map(|(at, _)| at);
                next
            };
            match next {
                None => return None,
                Some((at, why)) if at <= Instant::now() => return Some(why),
                Some((at, _)) => {
                    tokio::select! {
                        () = tokio::time::sleep_until(at) => {}
                        () = self.wake.notified() => {}
                    }
                }
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn deadline(&self, state: &State) -> Option<(Instant, Expiry)> {
        if !self.armed.load(Ordering::Relaxed) {
            return None;
        }
        match state.open.iter().flatten().min() {
            Some(oldest) => Some((*oldest + self.response_limit, Expiry::Stalled)),
            None => Some((state.idle_since + self.idle_limit, Expiry::Idle)),
        }
    }

    /// Wakes the waiter if the deadline moved before the one it waits for.
    fn wake_if_sooner(&self, state: &State) {
        let sooner = match (self.deadline(state), state.waiting_until) {
            (Some((at, _)), Some(waiting)) => at < waiting,
            (Some(_), None) => true,
            (None, _) => false,
        };
        if sooner {
            self.wake.notify_one();
        }
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        let mut state = self.watchdog.lock();
        state.open[self.slot] = None;
        if state.open.iter().all(Option::is_none) {
            state.idle_since = Instant::now();
        }
        self.watchdog.wake_if_sooner(&state);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const IDLE: Duration = Duration::from_secs(10);
    const RESPONSE: Duration = Duration::from_secs(20);

    #[tokio::test(start_paused = true)]
    async fn a_connection_without_requests_is_idle_after_the_limit() {
        let dog = Watchdog::new(IDLE, RESPONSE);
        let start = Instant::now();
        assert_eq!(dog.expired().await, Some(Expiry::Idle));
        assert_eq!(start.elapsed(), IDLE);
    }

    #[tokio::test(start_paused = true)]
    async fn an_open_request_is_stalled_after_the_response_limit() {
        let dog = Watchdog::new(IDLE, RESPONSE);
        let start = Instant::now();
        let _open = dog.open();
        assert_eq!(dog.expired().await, Some(Expiry::Stalled));
        assert_eq!(start.elapsed(), RESPONSE);
    }

    #[tokio::test(start_paused = true)]
    async fn requests_that_end_in_time_keep_it_alive_until_idle() {
        let dog = Watchdog::new(IDLE, RESPONSE);
        let start = Instant::now();
        let watcher = tokio::spawn({
            let dog = Arc::clone(&dog);
            async move { dog.expired().await }
        });
        for _ in 0..5 {
            tokio::time::sleep(Duration::from_secs(8)).await;
            let open = dog.open();
            tokio::time::sleep(Duration::from_secs(1)).await;
            drop(open);
        }
        assert_eq!(watcher.await.unwrap(), Some(Expiry::Idle));
        // The last request ended at 45 s.
        assert_eq!(start.elapsed(), Duration::from_secs(45) + IDLE);
    }

    #[tokio::test(start_paused = true)]
    async fn the_oldest_open_request_sets_the_deadline() {
        let dog = Watchdog::new(IDLE, RESPONSE);
        let start = Instant::now();
        let stuck = dog.open();
        let watcher = tokio::spawn({
            let dog = Arc::clone(&dog);
            async move { (dog.expired().await, start.elapsed()) }
        });
        for _ in 0..10 {
            tokio::time::sleep(Duration::from_secs(3)).await;
            drop(dog.open());
        }
        assert_eq!(watcher.await.unwrap(), (Some(Expiry::Stalled), RESPONSE));
        drop(stuck);
    }

    #[tokio::test(start_paused = true)]
    async fn http1_disarms_it_and_wakes_the_waiter() {
        let dog = Watchdog::new(IDLE, RESPONSE);
        let start = Instant::now();
        let watcher = tokio::spawn({
            let dog = Arc::clone(&dog);
            async move { (dog.expired().await, start.elapsed()) }
        });
        tokio::time::sleep(Duration::from_secs(1)).await;
        dog.http1();
        let (expired, after) = watcher.await.unwrap();
        assert_eq!(expired, None, "an HTTP/1 connection is hyper's to time");
        assert_eq!(after, Duration::from_secs(1), "the waiter is woken at once");
    }
}

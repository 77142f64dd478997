//! Polls that move a virtual clock (`MockConfig::poll_advance`, `gatecheck serve
//! --poll-advance`): a client that sleeps for the `openai-poll-after-ms` the mock asks for (the
//! OpenAI SDKs' `create_and_poll`/`poll`, or any loop that honours the header) would wait on a
//! virtual clock forever, since nothing moves it. With this on, a poll of a pending task that
//! comes while the clock still reads what it read at the task's last poll is taken as the
//! client having waited the interval the real service asks for (the video fixture's
//! `poll_after_ms`, 10 s): the clock moves that much before the answer. The header then asks
//! for [`HINT_MS`] of wall time, so that a poll loop ends in a fraction of a second.
//!
//! Deterministic: the clock moves only on requests, by a fixed step. A test that moves the
//! clock by hand between polls sees exactly the time it set (a poll after an advance reads a
//! new time, so it moves nothing); only a second poll at an unmoved clock reading moves it.

use parking_lot::Mutex;
use std::collections::HashMap;

/// The `openai-poll-after-ms` of task answers when polls move the clock: milliseconds of wall
/// time a client waits between two polls.
pub const HINT_MS: u64 = 50;

/// The most tasks whose last poll is remembered (then the memory starts again: a task
/// forgotten moves the clock one poll later).
const MAX_TASKS: usize = 1024;

/// The clock reading at each task's last poll.
#[derive(Debug, Default)]
pub(crate) struct Polls {
    last: Mutex<HashMap<String, i64>>,
}

impl Polls {
    /// A poll of task `id` that arrived when the clock read `at_ms`, the task `pending` then:
    /// moves `clock` by `step` when the task's last poll saw the same reading and the clock
    /// has not moved since; returns the reading the answer is made at.
    pub(crate) fn poll(
        &self,
        id: &str,
        at_ms: i64,
        pending: bool,
        clock: &super::clock::Clock,
        step: std::time::Duration,
    ) -> i64 {
        let mut last = self.last.lock();
        if pending && last.get(id) == Some(&at_ms) && clock.now_ms() == at_ms {
            clock.advance(step);
        }
        let now = clock.now_ms();
        if last.len() >= MAX_TASKS && !last.contains_key(id) {
            last.clear();
        }
        last.insert(id.to_owned(), now);
        now
    }

    /// Forgets every task (a reset).
    pub(crate) fn clear(&self) {
        self.last.lock().clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::clock::{Clock, ClockMode};
    use std::time::Duration;

    /// A repeated poll at an unmoved clock moves it one step; a poll after a move by hand, a
    /// first poll, and a poll of a finished task do not.
    #[test]
    fn only_a_repeated_poll_at_an_unmoved_clock_moves_it() {
        let clock = Clock::new(ClockMode::Virtual { epoch: 0 });
        let polls = Polls::default();
        let step = Duration::from_secs(10);
        assert_eq!(polls.poll("a", 0, true, &clock, step), 0);
        assert_eq!(polls.poll("b", 0, true, &clock, step), 0);
        assert_eq!(polls.poll("a", 0, true, &clock, step), 10_000);
        // b's last poll saw 0; the clock reads 10 s now: no move.
        assert_eq!(polls.poll("b", 10_000, true, &clock, step), 10_000);
        clock.advance(Duration::from_secs(3));
        assert_eq!(polls.poll("a", 13_000, true, &clock, step), 13_000);
        assert_eq!(polls.poll("a", 13_000, false, &clock, step), 13_000);
        polls.clear();
        assert_eq!(polls.poll("a", 13_000, true, &clock, step), 13_000);
    }
}

//! How long a check waits between fetches of a task it follows.
//!
//! On the mock's clock a wait is free and every check keeps its poll step. On a real clock (a
//! deployment, or `gatecheck record`, which always drives a deployment run) every wait is wall
//! time, one check after another: each gap is a quarter of the time waited so far, at least
//! [`FIRST_GAP`] and at most the step (10 s on a deployment), so a task is seen ending at most a
//! quarter of its time (or a step) after it ended: one that ends in 15 s within 19 s, not at
//! the next 10 s tick, and one that takes minutes costs a dozen fetches more. The fetch that
//! confirms a terminal state (states never go back) follows [`CONFIRM_GAP`] after it, not a
//! whole step. An explicit `--poll-interval` is kept as given.

use super::{CheckCtx, Halt};
use std::time::Duration;

/// The first wait after a fetch, on a real clock.
pub(crate) const FIRST_GAP: Duration = Duration::from_secs(1);
/// The wait before the fetch that confirms a terminal state, on a real clock.
pub(crate) const CONFIRM_GAP: Duration = Duration::from_secs(1);

/// The waits of one followed task.
#[derive(Debug)]
pub(crate) struct Pacer {
    step: Duration,
    /// Whether the waits are wall time the run chose (a real clock, no `--poll-interval`).
    paced: bool,
    /// Time waited so far.
    pub(crate) waited: Duration,
}

impl Pacer {
    /// Waits of at most `step` between the fetches of one task.
    pub(crate) fn new(ctx: &CheckCtx, step: Duration) -> Self {
        let paced = ctx.env.mock.is_none() && ctx.cfg.limits.poll_interval.is_none();
        Self::with(step, paced)
    }

    fn with(step: Duration, paced: bool) -> Self {
        Self {
            step,
            paced,
            waited: Duration::ZERO,
        }
    }

    /// The wait before the next fetch; `ended`: the last answer was terminal.
    pub(crate) fn gap(&mut self, ended: bool) -> Duration {
        if !self.paced {
            return self.step;
        }
        if ended {
            return CONFIRM_GAP.min(self.step);
        }
        (self.waited / 4).max(FIRST_GAP).min(self.step)
    }

    /// Waits [`Pacer::gap`] (the mock's clock, or wall time), and counts it.
    pub(crate) async fn wait(
        &mut self,
        ctx: &CheckCtx,
        ended: bool,
        what: &str,
    ) -> Result<(), Halt> {
        let gap = self.gap(ended);
        ctx.advance(gap, what).await?;
        self.waited += gap;
        Ok(())
    }

    #[cfg(test)]
    fn waited_gap(&mut self, ended: bool) -> Duration {
        let gap = self.gap(ended);
        self.waited += gap;
        gap
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_clock_gaps_grow_with_the_wait_and_a_terminal_state_is_confirmed_at_once() {
        let ms = Duration::from_millis;
        let mut p = Pacer::with(ms(10_000), true);
        let gaps: Vec<u128> = (0..12).map(|_| p.waited_gap(false).as_millis()).collect();
        assert_eq!(
            gaps,
            [1000, 1000, 1000, 1000, 1000, 1250, 1562, 1953, 2441, 3051, 3814, 4768]
        );
        // Fetches at 15.3 s, 19.1 s, 23.8 s: a task that ends at 15.5 s is seen at 19.1 s.
        assert_eq!(p.waited.as_millis(), 23_841);
        for _ in 0..20 {
            p.waited_gap(false);
        }
        assert_eq!(p.gap(false), ms(10_000), "at most the step");
        assert_eq!(p.gap(true), CONFIRM_GAP);
        let mut short = Pacer::with(ms(300), true);
        assert_eq!([short.gap(false), short.gap(true)], [ms(300), ms(300)]);
        let mut fixed = Pacer::with(ms(2000), false);
        assert_eq!([fixed.gap(false), fixed.gap(true)], [ms(2000), ms(2000)]);
    }
}

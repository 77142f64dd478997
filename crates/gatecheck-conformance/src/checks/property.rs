//! The property runner: draws generated cases, runs a check's test on each against the live
//! target, and shrinks a failure to a minimal case.

use super::{CheckCtx, Halt, Pass};
use crate::generators::test_runner;
use proptest::strategy::{Strategy, ValueTree};
use std::fmt::Debug;
use std::future::Future;

/// One step of the shrink path.
#[derive(Debug, Clone, Copy)]
enum Op {
    Simplify,
    Complicate,
}

/// Rebuilds case `index` of a seeded run and replays `ops` on its value tree. Returns the value
/// and whether the last op moved. Value trees are not `Send`, so no tree ever lives across an
/// `.await`: each shrink candidate is replayed from the seed (cheap, CPU only).
fn replay<S: Strategy>(
    strategy: &S,
    seed: u64,
    cases: u32,
    index: u32,
    ops: &[Op],
) -> Result<(S::Value, bool), Halt> {
    let mut runner = test_runner(seed, cases);
    let mut tree = None;
    for _ in 0..=index {
        tree = Some(
            strategy
                .new_tree(&mut runner)
                .map_err(|e| Halt::Error(format!("generator: {e}")))?,
        );
    }
    let mut tree = tree.ok_or_else(|| Halt::Error("generator: no case".into()))?;
    let mut moved = true;
    for op in ops {
        moved = match op {
            Op::Simplify => tree.simplify(),
            Op::Complicate => tree.complicate(),
        };
    }
    Ok((tree.current(), moved))
}

/// Counts one shrink step against the run's budget; `false` when it is spent.
fn take_shrink_step(ctx: &CheckCtx) -> bool {
    use std::sync::atomic::Ordering;
    let budget = ctx.cfg.limits.shrink_budget;
    ctx.env
        .shrink_spent
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
            (n < budget).then_some(n + 1)
        })
        .is_ok()
}

/// The values of cases `0..cases` of a seeded run.
pub(crate) fn generate<S: Strategy>(
    strategy: &S,
    seed: u64,
    cases: u32,
) -> Result<Vec<S::Value>, Halt> {
    let mut runner = test_runner(seed, cases);
    (0..cases)
        .map(|_| {
            strategy
                .new_tree(&mut runner)
                .map(|t| t.current())
                .map_err(|e| Halt::Error(format!("generator: {e}")))
        })
        .collect()
}

/// Runs `test` on `cases` values of `strategy` (the check's seed makes them reproducible). On
/// the first failure, shrinks the input with proptest's `simplify`/`complicate` loop, against
/// the live target, at most `max_shrink` steps, and reports the minimal failing case.
pub(crate) async fn for_all<S, F, Fut>(
    ctx: &CheckCtx,
    cases: u32,
    strategy: S,
    test: F,
) -> Result<Pass, Halt>
where
    S: Strategy,
    S::Value: Debug,
    F: Fn(S::Value) -> Fut,
    Fut: Future<Output = Result<(), Halt>>,
{
    let seed = ctx.seed;
    let values = generate(&strategy, seed, cases)?;
    for (case, value) in values.into_iter().enumerate() {
        match test(value).await {
            Ok(()) => continue,
            Err(Halt::Finding(mut ev)) => {
                let mut ops: Vec<Op> = Vec::new();
                let mut steps = 0u32;
                let mut next = Op::Simplify;
                while steps < ctx.cfg.limits.max_shrink && take_shrink_step(ctx) {
                    ops.push(next);
                    let (v, moved) = replay(&strategy, seed, cases, case as u32, &ops)?;
                    if !moved {
                        break;
                    }
                    steps += 1;
                    match test(v).await {
                        Err(Halt::Finding(smaller)) => {
                            ev = smaller;
                            next = Op::Simplify;
                        }
                        Err(Halt::Stop(..)) => break,
                        _ => next = Op::Complicate,
                    }
                }
                ev.shrink_steps = steps;
                ev.cases_run = case as u32 + 1;
                ev.message = format!("{} (case {} of {cases})", ev.message, case + 1);
                // The request is the case: the evidence's curl shows the smallest failing one.
                ev.case = Some(format!(
                    "case {} of {cases}, shrunk in {steps} steps to the request shown",
                    case + 1
                ));
                return Err(Halt::Finding(ev));
            }
            Err(other) => return Err(other),
        }
    }
    Ok(Pass { cases, note: None })
}

/// Runs `test` on each of a small finite domain's `values` in order, the first `cases` of
/// them: no draw, so every seed judges the same values (a known difference met by one value
/// is met on every seed). A failure names its case; a value of such a domain is already
/// minimal, so nothing is shrunk.
pub(crate) async fn for_each_value<T, F, Fut>(
    cases: u32,
    values: Vec<T>,
    test: F,
) -> Result<Pass, Halt>
where
    F: Fn(T) -> Fut,
    Fut: Future<Output = Result<(), Halt>>,
{
    let n = values.len().min(cases as usize);
    for (case, value) in values.into_iter().take(n).enumerate() {
        match test(value).await {
            Ok(()) => {}
            Err(Halt::Finding(mut ev)) => {
                ev.cases_run = case as u32 + 1;
                ev.message = format!("{} (case {} of {n})", ev.message, case + 1);
                ev.case = Some(format!("case {} of {n}", case + 1));
                return Err(Halt::Finding(ev));
            }
            Err(other) => return Err(other),
        }
    }
    Ok(Pass {
        cases: n as u32,
        note: None,
    })
}

//! The lower envelope of several models from the roots and ties of every
//! pair: between two consecutive roots or tie ends of any pair no two
//! models swap, so one sample per piece tells their order.

use super::{BestInterval, Bound, CrossoverPoint, Crossovers, PointKind, Roots, Span, roots};

/// Points this close (relative) are one: the accuracy promised is `1e-9`,
/// and a tie's end found numerically may sit a few `1e-12` off the closed
/// form of the crossing of a third design at the same point.
const SAME_POINT: f64 = 1e-9;

fn close(p: f64, q: f64) -> bool {
    (p - q).abs() <= SAME_POINT * p.abs().max(q.abs())
}

/// The cuts of the span in increasing order, points within [`SAME_POINT`]
/// of the first of a run merged into one: the span's end if there is one,
/// else a closed form, else the first.
fn merged_cuts(pairs: &[((usize, usize), Roots)], span: &Span) -> Vec<f64> {
    // (where, rank): 0 the span's ends, 1 closed forms, 2 the rest.
    let mut cuts = vec![(span.lo, 0u8), (span.hi, 0u8)];
    for (_, found) in pairs {
        cuts.extend(
            found
                .roots
                .iter()
                .map(|r| (r.at, if r.closed_form { 1 } else { 2 })),
        );
        cuts.extend(
            found
                .zero_pieces
                .iter()
                .flat_map(|&(a, b)| [(a, 2), (b, 2)]),
        );
    }
    cuts.retain(|&(c, _)| c >= span.lo && c <= span.hi);
    cuts.sort_by(|p, q| p.0.total_cmp(&q.0));
    let mut out: Vec<(f64, f64, u8)> = Vec::with_capacity(cuts.len());
    for (c, rank) in cuts {
        match out.last_mut() {
            Some((first, kept, kept_rank)) if close(*first, c) => {
                if rank < *kept_rank {
                    (*kept, *kept_rank) = (c, rank);
                }
            }
            _ => out.push((c, c, rank)),
        }
    }
    out.into_iter().map(|(_, kept, _)| kept).collect()
}

/// Which model is lowest on each piece of the span, and the points between.
pub(super) fn envelope(
    models: &[Bound],
    pairs: &[((usize, usize), Roots)],
    span: &Span,
) -> Crossovers {
    let cuts = merged_cuts(pairs, span);
    let tied = |i: usize, j: usize, a: f64, b: f64| {
        let key = (i.min(j), i.max(j));
        pairs.iter().any(|(pair, found)| {
            *pair == key
                && found
                    .zero_pieces
                    .iter()
                    .any(|&(p, q)| (p <= a || close(p, a)) && (q >= b || close(q, b)))
        })
    };
    let mut intervals: Vec<BestInterval> = Vec::new();
    for w in cuts.windows(2) {
        let (a, b) = (w[0], w[1]);
        let mid = roots::split(a, b);
        let values: Vec<f64> = models.iter().map(|m| m.tape.at(mid).v).collect();
        let lowest = (0..values.len())
            .min_by(|&p, &q| values[p].total_cmp(&values[q]))
            .unwrap_or(0);
        let group: Vec<usize> = (0..values.len())
            .filter(|&k| k == lowest || tied(k, lowest, a, b))
            .collect();
        let best = group[0];
        let others: Vec<usize> = group[1..].to_vec();
        match intervals.last_mut() {
            Some(last) if last.best == best && last.tied == others => last.hi = b,
            _ => intervals.push(BestInterval {
                lo: a,
                hi: b,
                best,
                tied: others,
            }),
        }
    }
    let pair = |i: usize, j: usize| {
        let key = (i.min(j), i.max(j));
        pairs
            .iter()
            .find(|(p, _)| *p == key)
            .map(|(_, found)| found)
    };
    let mut points = Vec::new();
    for w in intervals.windows(2) {
        let (left, right) = (&w[0], &w[1]);
        let at = left.hi;
        let root = pair(left.best, right.best)
            .and_then(|found| found.roots.iter().find(|r| close(r.at, at)));
        // Where one piece's best is tied with the other's best, the
        // designs start or stop tying: not a swap, whatever the root.
        let tie_changes = right.tied.contains(&left.best) || left.tied.contains(&right.best);
        let (kind, closed_form, at) = match root {
            Some(r) if left.best != right.best && !tie_changes => (r.kind, r.closed_form, r.at),
            _ => (PointKind::TieBoundary, false, at),
        };
        points.push(CrossoverPoint {
            at,
            before: left.best,
            after: right.best,
            designs: (left.best, right.best),
            kind,
            closed_form,
        });
    }
    // Tangencies of another design with the best one inside a piece.
    for interval in &intervals {
        for other in (0..models.len()).filter(|&k| k != interval.best) {
            let Some(found) = pair(interval.best, other) else {
                continue;
            };
            for r in &found.roots {
                let inside = r.at > interval.lo
                    && r.at < interval.hi
                    && !close(r.at, interval.lo)
                    && !close(r.at, interval.hi);
                if inside && r.kind == PointKind::Tangency {
                    points.push(CrossoverPoint {
                        at: r.at,
                        before: interval.best,
                        after: interval.best,
                        designs: (interval.best, other),
                        kind: PointKind::Tangency,
                        closed_form: r.closed_form,
                    });
                }
            }
        }
    }
    points.sort_by(|p, q| p.at.total_cmp(&q.at));
    let ties = pairs
        .iter()
        .filter(|(_, found)| {
            found
                .zero_pieces
                .iter()
                .any(|&(a, b)| a <= span.lo && b >= span.hi)
        })
        .map(|(pair, _)| *pair)
        .collect();
    Crossovers {
        variable: span.variable.to_string(),
        intervals,
        points,
        ties,
    }
}

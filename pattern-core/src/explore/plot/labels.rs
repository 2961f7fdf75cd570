//! Where the labels of the crossover marks go: each beside its mark at the
//! top of the plot, in the first row down where it overlaps no label
//! already placed (nearby marks stagger instead of printing over each
//! other). Greedy by position, `n·rows`.

/// The width reserved per character, in font sizes: above the mean
/// advance of a sans-serif font's digits and signs (about 0.56) and the
/// bitmap font's 6 pixels at 13.
pub(super) const CHAR_WIDTH: f64 = 0.62;
/// Horizontal room kept between two labels of a row, in pixels.
const GAP: i32 = 4;

/// A label placed: its left edge and its row (0 at the top).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Placed {
    pub left: i32,
    pub row: usize,
}

/// The estimated width in pixels of `text` in a font of `size` pixels.
pub(super) fn width(text: &str, size: f64) -> i32 {
    let chars = text.chars().count() as f64;
    (chars * CHAR_WIDTH * size).ceil() as i32
}

/// Places labels of the given left edges and widths (any order): the
/// result in the same order.
pub(super) fn place(labels: &[(i32, i32)]) -> Vec<Placed> {
    let mut order: Vec<usize> = (0..labels.len()).collect();
    order.sort_by_key(|&i| labels[i].0);
    // The right edge of the last label of each row.
    let mut rows: Vec<i32> = Vec::new();
    let mut out = vec![Placed { left: 0, row: 0 }; labels.len()];
    for i in order {
        let (left, width) = labels[i];
        let row = match rows
            .iter()
            .position(|&right| right.saturating_add(GAP) <= left)
        {
            Some(row) => row,
            None => {
                rows.push(i32::MIN);
                rows.len() - 1
            }
        };
        rows[row] = left.saturating_add(width);
        out[i] = Placed { left, row };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_labels_stagger_and_far_ones_share_a_row() {
        // 0..60 and 50..110 overlap; 120..180 fits after the first.
        let placed = place(&[(50, 60), (0, 60), (120, 60)]);
        assert_eq!(placed.iter().map(|p| p.row).collect::<Vec<_>>(), [1, 0, 0]);
        assert_eq!(placed[0].left, 50);
    }

    #[test]
    fn widths_grow_with_the_text_and_the_font() {
        assert_eq!(width("x = 4.2102", 10.0), 62);
        assert!(width("x = 4.2102", 13.0) > width("x = 4.2", 13.0));
    }
}

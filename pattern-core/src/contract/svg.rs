//! The report as a plot: the annotated curve, the measured medians with
//! the spread of their repetitions, the fitted curve; both axes log.

use super::error::ContractError;
use super::report::Report;
use plotters::prelude::*;

/// Pixels of the plot.
const SIZE: (u32, u32) = (900, 560);

fn draw_error(e: impl std::fmt::Display) -> ContractError {
    ContractError::Plot(e.to_string())
}

impl Report {
    /// The report as an SVG document (feature `plots`): the annotated
    /// model (blue), the fitted model (green), and each size's median
    /// with a bar from its fastest to its slowest repetition (red), over
    /// the sizes on log axes. A time of 0 is drawn at the foot of the
    /// axis. [`ContractError::Plot`] holds plotters' message.
    pub fn svg(&self) -> Result<String, ContractError> {
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, SIZE).into_drawing_area();
            self.draw(&root)?;
        }
        Ok(out)
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, plotters::coord::Shift>,
    ) -> Result<(), ContractError> {
        let xs: Vec<f64> = self.points.iter().map(|p| p.x as f64).collect();
        let ys: Vec<f64> = (self.points.iter())
            .flat_map(|p| [p.min_ns, p.max_ns, p.annotated_ns, p.fitted_ns])
            .filter(|v| v.is_finite() && *v > 0.0)
            .collect();
        let (x_lo, x_hi) = span(&xs);
        let (y_lo, y_hi) = span(&ys);
        let foot = y_lo / 1.5;
        let y = move |v: f64| if v.is_finite() && v > foot { v } else { foot };
        root.fill(&WHITE).map_err(draw_error)?;
        let verdict = if self.holds() { "holds" } else { "FAILS" };
        let title = format!("cost contract of {}: {verdict}", self.function);
        let mut chart = ChartBuilder::on(root)
            .caption(title, ("sans-serif", 18))
            .margin(14)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(
                (x_lo / 1.2..x_hi * 1.2).log_scale(),
                (foot..y_hi * 1.5).log_scale(),
            )
            .map_err(draw_error)?;
        chart
            .configure_mesh()
            .x_desc("x (size)")
            .y_desc("time per call (ns)")
            .x_label_formatter(&|v| format!("{v:.0e}"))
            .y_label_formatter(&|v| format!("{v:.0e}"))
            .draw()
            .map_err(draw_error)?;
        let blue = RGBColor(31, 119, 180);
        let green = RGBColor(44, 160, 44);
        let red = RGBColor(214, 39, 40);
        let curve = |f: fn(&super::Point) -> f64| {
            (self.points.iter())
                .map(move |p| (p.x as f64, y(f(p))))
                .collect::<Vec<_>>()
        };
        let annotated = format!("annotated: {}", self.annotated);
        let fitted = format!("fitted: {}", self.fitted);
        for (name, points, color) in [
            (annotated, curve(|p| p.annotated_ns), blue),
            (fitted, curve(|p| p.fitted_ns), green),
        ] {
            chart
                .draw_series(LineSeries::new(points, color.stroke_width(2)))
                .map_err(draw_error)?
                .label(name)
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 4), (x + 12, y + 4)], color.filled())
                });
        }
        // Each size's spread as a bar, its median as a dot.
        let bars = self.points.iter().map(|p| {
            let x = p.x as f64;
            PathElement::new([(x, y(p.min_ns)), (x, y(p.max_ns))], red.stroke_width(2))
        });
        chart.draw_series(bars).map_err(draw_error)?;
        let dots = (self.points.iter())
            .map(|p| Circle::new((p.x as f64, y(p.median_ns)), 4, red.filled()));
        chart
            .draw_series(dots)
            .map_err(draw_error)?
            .label("measured: median, fastest to slowest")
            .legend(move |(x, y)| Circle::new((x + 6, y), 4, red.filled()));
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperLeft)
            .draw()
            .map_err(draw_error)?;
        root.present().map_err(draw_error)
    }
}

/// The smallest and largest of `values` (1 and 10 when there are none).
fn span(values: &[f64]) -> (f64, f64) {
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if lo.is_finite() && hi.is_finite() {
        (lo, hi)
    } else {
        (1.0, 10.0)
    }
}

//! Plots as SVG and PNG (plotters): cost curves of several designs over a
//! variable on log axes with crossover points marked ([`CostCurves`]), a
//! design's time per element against a count beside its queueing and
//! simulation predictions ([`ThreadsPlot`]), and a simulation's dynamic
//! efficiency and Gantt chart ([`Efficiency`], [`Gantt`], drawn by the
//! simulator's own code). Every plot renders through [`Plot`].
//!
//! ```
//! use pattern_core::Expr;
//! use pattern_core::explore::plot::{CostCurves, Plot};
//! use pattern_core::explore::sweep::Axis;
//!
//! let pool = Expr::parse("1034.17*x*log2(x)/4")?;
//! let pair = Expr::parse("2*536.185*x/2")?;
//! let x = Axis::parse("x", "2..1e6:40:log")?;
//! let plot = CostCurves::of_models(&[("tpool[4](qsort)", &pool), ("tpool[2](seq(inc, inc))", &pair)], &x, &[])?
//!     .crossovers(&[2f64.powf(536.185 * 4.0 / 1034.17)]);
//! let svg = plot.svg()?;
//! assert!(svg.contains("tpool[4](qsort)") && svg.contains("time per element (ns)"));
//! let png = plot.png()?;
//! assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod labels;
mod text;

use super::sweep::{Axis, Sweep, SweepError, ThreadCurve};
use crate::Expr;
use crate::sim::{SimError, SimResult};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// The smallest and largest side of a plot, in pixels.
pub const SIDE: std::ops::RangeInclusive<u32> = 64..=8192;

/// Why a plot could not be made.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PlotError {
    /// A plot without series.
    #[error("the plot has no series")]
    NoSeries,
    /// A series without points.
    #[error("the series `{0}` has no point")]
    EmptySeries(String),
    /// A point that is not finite.
    #[error("the series `{series}` has the point ({x}, {y}), not finite")]
    NotFinite {
        /// The series.
        series: String,
        /// Its x.
        x: f64,
        /// Its y.
        y: f64,
    },
    /// A point at or below 0 on a log axis.
    #[error(
        "the series `{series}` has the point ({x}, {y}): a log axis takes positive values only"
    )]
    NotPositive {
        /// The series.
        series: String,
        /// Its x.
        x: f64,
        /// Its y.
        y: f64,
    },
    /// A crossover to mark that is not finite or outside the curves' range
    /// of x.
    #[error("the crossover at {x} is outside the curves' range of x, {lo} to {hi}")]
    Crossover {
        /// The crossover.
        x: f64,
        /// The smallest x of the curves.
        lo: f64,
        /// The largest.
        hi: f64,
    },
    /// A simulation's window that is not positive, or so small that the
    /// plot would have more than a million steps.
    #[error(
        "a window of {window} ns over a run of {makespan} ns: give a positive window, at most a million a run"
    )]
    Window {
        /// The window.
        window: f64,
        /// The run's makespan.
        makespan: f64,
    },
    /// A size outside [`SIDE`].
    #[error("a plot of {0}×{1} pixels: each side must be 64 to 8192")]
    Size(u32, u32),
    /// A path whose extension is neither `.svg` nor `.png`.
    #[error("`{0}`: the file must end in .svg or .png")]
    Format(String),
    /// The models could not be swept.
    #[error(transparent)]
    Sweep(#[from] SweepError),
    /// Drawing failed (plotters' message).
    #[error("drawing failed: {0}")]
    Draw(String),
    /// Encoding or writing the file failed.
    #[error("writing failed: {0}")]
    Write(String),
}

fn draw_error(e: impl std::fmt::Display) -> PlotError {
    PlotError::Draw(e.to_string())
}

impl From<SimError> for PlotError {
    fn from(e: SimError) -> PlotError {
        PlotError::Draw(e.to_string())
    }
}

mod sealed {
    use super::PlotError;
    use plotters::coord::Shift;
    use plotters::prelude::{DrawingArea, DrawingBackend};

    /// What a plot draws, on any backend.
    pub trait Draw {
        /// Checks the data before any drawing.
        fn check(&self) -> Result<(), PlotError>;
        /// The size in pixels.
        fn size(&self) -> (u32, u32);
        /// Draws on `root`.
        fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError>;
    }
}

/// A plot: rendered as an SVG document, a PNG image, or a file of either.
pub trait Plot: sealed::Draw {
    /// The plot as an SVG document.
    fn svg(&self) -> Result<String, PlotError> {
        self.check()?;
        let size = checked_size(self.size())?;
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, size).into_drawing_area();
            self.draw(&root)?;
        }
        Ok(out)
    }

    /// The plot as a PNG image (8-bit RGB).
    fn png(&self) -> Result<Vec<u8>, PlotError> {
        self.check()?;
        let (w, h) = checked_size(self.size())?;
        let mut rgb = vec![0u8; w as usize * h as usize * 3];
        {
            let backend = text::BitmapText(BitMapBackend::with_buffer(&mut rgb, (w, h)));
            self.draw(&backend.into_drawing_area())?;
        }
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, w, h);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let write_error = |e: png::EncodingError| PlotError::Write(e.to_string());
        let mut writer = encoder.write_header().map_err(write_error)?;
        writer.write_image_data(&rgb).map_err(write_error)?;
        writer.finish().map_err(write_error)?;
        Ok(out)
    }

    /// Writes the plot to `path`, as SVG or PNG by its extension.
    fn save(&self, path: &Path) -> Result<(), PlotError> {
        let bytes = match path.extension().and_then(|e| e.to_str()) {
            Some("svg") => self.svg()?.into_bytes(),
            Some("png") => self.png()?,
            _ => return Err(PlotError::Format(path.display().to_string())),
        };
        std::fs::write(path, bytes)
            .map_err(|e| PlotError::Write(format!("{}: {e}", path.display())))
    }
}

impl<T: sealed::Draw> Plot for T {}

fn checked_size((w, h): (u32, u32)) -> Result<(u32, u32), PlotError> {
    if SIDE.contains(&w) && SIDE.contains(&h) {
        Ok((w, h))
    } else {
        Err(PlotError::Size(w, h))
    }
}

/// A named curve: its points `(x, y)`, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// The name in the legend.
    pub name: String,
    /// The points.
    pub points: Vec<(f64, f64)>,
}

impl Series {
    /// A series named `name`.
    pub fn new(name: &str, points: Vec<(f64, f64)>) -> Series {
        Series {
            name: name.to_string(),
            points,
        }
    }
}

/// The smallest and largest value of a coordinate.
type Span = (f64, f64);

/// Checks the series: some, none empty, every point finite (and positive
/// on log axes); returns the ranges of x and y.
fn ranges(series: &[Series], log: bool) -> Result<(Span, Span), PlotError> {
    if series.is_empty() {
        return Err(PlotError::NoSeries);
    }
    let (mut x, mut y) = (
        (f64::INFINITY, f64::NEG_INFINITY),
        (f64::INFINITY, f64::NEG_INFINITY),
    );
    for s in series {
        if s.points.is_empty() {
            return Err(PlotError::EmptySeries(s.name.clone()));
        }
        for &(px, py) in &s.points {
            let series = s.name.clone();
            if !(px.is_finite() && py.is_finite()) {
                return Err(PlotError::NotFinite {
                    series,
                    x: px,
                    y: py,
                });
            }
            if log && (px <= 0.0 || py <= 0.0) {
                return Err(PlotError::NotPositive {
                    series,
                    x: px,
                    y: py,
                });
            }
            x = (x.0.min(px), x.1.max(px));
            y = (y.0.min(py), y.1.max(py));
        }
    }
    Ok((x, y))
}

/// The most decades a log axis spans: plotters' log ticks divide its ends,
/// and a ratio beyond `f64` (7e-210 to 1.5e109) sent them into a loop of
/// 10^17 steps. Values below the axis are drawn at its foot.
const MAX_LOG_RATIO: f64 = 1e300;

/// A range that plotters can draw: widened when empty, and on log axes
/// within the normal numbers (a subnormal end halved to 0 sent plotters'
/// log ticks into an endless loop) and within [`MAX_LOG_RATIO`].
fn widened((lo, hi): Span, log: bool) -> std::ops::Range<f64> {
    match (lo == hi, log) {
        (false, false) => lo..hi,
        (true, false) => lo - 1.0..hi + 1.0,
        (empty, true) => {
            let (lo, hi) = if empty {
                (lo / 2.0, hi * 2.0)
            } else {
                (lo, hi)
            };
            let lo = lo.clamp(f64::MIN_POSITIVE, f64::MAX / 4.0);
            let hi = hi.min(f64::MAX).max(lo * 4.0);
            lo.max(hi / MAX_LOG_RATIO)..hi
        }
    }
}

/// `v` in 5 significant digits, with an exponent when large or small.
fn short(v: f64) -> String {
    if v == 0.0 || (1e-3..1e5).contains(&v.abs()) {
        format!("{}", (v * 1e4).round() / 1e4)
    } else {
        format!("{v:.4e}")
    }
}

/// The series' colours, one per series in turn.
fn color(i: usize) -> RGBColor {
    const COLORS: [RGBColor; 6] = [
        RGBColor(31, 119, 180),
        RGBColor(214, 39, 40),
        RGBColor(44, 160, 44),
        RGBColor(148, 103, 189),
        RGBColor(255, 127, 14),
        RGBColor(23, 190, 207),
    ];
    COLORS[i % COLORS.len()]
}

/// Draws the series as lines with a legend of filled squares (no line in
/// the legend, so that every polyline of the plot is a series, a mark or
/// a tick) at `corner`.
fn draw_series<'a, DB: DrawingBackend + 'a, X, Y>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
    series: &[Series],
    corner: SeriesLabelPosition,
) -> Result<(), PlotError>
where
    X: plotters::coord::ranged1d::Ranged<ValueType = f64>,
    Y: plotters::coord::ranged1d::Ranged<ValueType = f64>,
{
    // Earlier series are drawn wider, so that a later one lying on an
    // earlier (a simulation equal to the queueing model, say) leaves both
    // seen.
    let widest = series.len().min(5);
    for (i, s) in series.iter().enumerate() {
        let c = color(i);
        let width = 2 + 2 * u32::try_from(widest.saturating_sub(i + 1)).unwrap_or(0);
        chart
            .draw_series(LineSeries::new(
                s.points.iter().copied(),
                c.stroke_width(width),
            ))
            .map_err(draw_error)?
            .label(s.name.as_str())
            .legend(move |(x, y)| Rectangle::new([(x, y - 4), (x + 12, y + 4)], c.filled()));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(corner)
        .draw()
        .map_err(draw_error)
}

/// Cost curves of several designs over one variable, both axes log, the
/// crossover points marked by vertical lines.
#[derive(Clone, Debug, PartialEq)]
pub struct CostCurves {
    /// The curves.
    pub series: Vec<Series>,
    /// The values of x to mark.
    pub marks: Vec<f64>,
    /// The title.
    pub title: String,
    /// The label of the x axis.
    pub x_label: String,
    /// The label of the y axis.
    pub y_label: String,
    /// The size in pixels.
    pub size: (u32, u32),
}

impl CostCurves {
    /// The curves of `series`: titled "time per element", x labelled
    /// "x (elements)", y "time per element (ns)", 900×560 pixels.
    pub fn new(series: Vec<Series>) -> CostCurves {
        CostCurves {
            series,
            marks: Vec::new(),
            title: "time per element".into(),
            x_label: "x (elements)".into(),
            y_label: "time per element (ns)".into(),
            size: (900, 560),
        }
    }

    /// The curves of `models` (name, model) over `axis`, the models' other
    /// variables bound by `at`; evaluated by [`Sweep`].
    pub fn of_models(
        models: &[(&str, &Expr)],
        axis: &Axis,
        at: &[(&str, f64)],
    ) -> Result<CostCurves, PlotError> {
        let mut axes = vec![axis.clone()];
        for &(name, value) in at {
            axes.push(Axis::from_values(name, &[value]).map_err(SweepError::from)?);
        }
        let sweep = models.iter().fold(Sweep::new(axes), |s, (name, model)| {
            s.model(name, (*model).clone())
        });
        let table = sweep.run()?;
        let xs = table.column(axis.name()).unwrap_or_default();
        let series = models
            .iter()
            .map(|(name, _)| {
                let ys = table.column(name).unwrap_or_default();
                Series::new(name, xs.iter().copied().zip(ys).collect())
            })
            .collect();
        let mut plot = CostCurves::new(series);
        plot.x_label = format!("{} (elements)", axis.name());
        Ok(plot)
    }

    /// Marks these values of x (crossover points).
    pub fn crossovers(mut self, xs: &[f64]) -> CostCurves {
        self.marks = xs.to_vec();
        self
    }

    /// Sets the title.
    pub fn title(mut self, title: &str) -> CostCurves {
        self.title = title.to_string();
        self
    }

    /// Sets the size in pixels.
    pub fn size(mut self, width: u32, height: u32) -> CostCurves {
        self.size = (width, height);
        self
    }
}

impl CostCurves {
    /// The marks' labels beside their lines at the top of the plot (`tops`:
    /// the pixel where each mark's line ends), nearby ones staggered down
    /// ([`labels::place`]); marks of the same label once.
    fn draw_mark_labels<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        tops: &[(i32, i32)],
    ) -> Result<(), PlotError> {
        const FONT: f64 = 13.0;
        const LINE: i32 = 15;
        let name = self.x_label.split(' ').next().unwrap_or("x");
        let mut seen = std::collections::HashSet::new();
        let mut texts: Vec<(String, (i32, i32))> = Vec::new();
        for (&m, &top) in self.marks.iter().zip(tops) {
            let text = format!("{name} = {}", short(m));
            if seen.insert(text.clone()) {
                texts.push((text, top));
            }
        }
        // plotters draws a font of `size` at `size / 1.24` pixels.
        let pixels = FONT / 1.24;
        let boxes: Vec<(i32, i32)> = texts
            .iter()
            .map(|(t, (x, _))| (x.saturating_add(3), labels::width(t, pixels)))
            .collect();
        let placed = labels::place(&boxes);
        for ((text, (_, y)), at) in texts.into_iter().zip(placed) {
            let row = i32::try_from(at.row).unwrap_or(i32::MAX);
            let y = y.saturating_add(row.saturating_mul(LINE));
            root.draw(&Text::new(
                text,
                (at.left, y),
                ("sans-serif", FONT).into_font().color(&BLACK),
            ))
            .map_err(draw_error)?;
        }
        Ok(())
    }
}

impl sealed::Draw for CostCurves {
    fn check(&self) -> Result<(), PlotError> {
        let ((lo, hi), _) = ranges(&self.series, true)?;
        match self.marks.iter().find(|&&m| !(lo..=hi).contains(&m)) {
            Some(&x) => Err(PlotError::Crossover { x, lo, hi }),
            None => Ok(()),
        }
    }

    fn size(&self) -> (u32, u32) {
        self.size
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        let (x, y) = ranges(&self.series, true)?;
        let (xr, yr) = (widened(x, true), widened(y, true));
        root.fill(&WHITE).map_err(draw_error)?;
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, ("sans-serif", 20))
            .margin(14)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(xr.clone().log_scale(), yr.clone().log_scale())
            .map_err(draw_error)?;
        chart
            .configure_mesh()
            .x_desc(self.x_label.as_str())
            .y_desc(self.y_label.as_str())
            .x_label_formatter(&|v| format!("{v:.0e}"))
            .y_label_formatter(&|v| format!("{v:.0e}"))
            .draw()
            .map_err(draw_error)?;
        // Costs rise with x: the lower right corner is free.
        draw_series(&mut chart, &self.series, SeriesLabelPosition::LowerRight)?;
        for &m in &self.marks {
            let line = [(m, yr.start), (m, yr.end)];
            chart
                .draw_series([PathElement::new(line, BLACK.mix(0.6).stroke_width(1))])
                .map_err(draw_error)?;
        }
        let tops: Vec<(i32, i32)> = self
            .marks
            .iter()
            .map(|&m| chart.backend_coord(&(m, yr.end)))
            .collect();
        self.draw_mark_labels(root, &tops)?;
        root.present().map_err(draw_error)
    }
}

/// A design's time per element against a count (linear axes): the
/// operators' model, the queueing prediction and, when simulated, the
/// simulation, from a [`ThreadCurve`].
#[derive(Clone, Debug, PartialEq)]
pub struct ThreadsPlot {
    /// The curve.
    pub curve: ThreadCurve,
    /// The title.
    pub title: String,
    /// The size in pixels.
    pub size: (u32, u32),
}

impl ThreadsPlot {
    /// The plot of `curve`, titled "time per element against threads",
    /// 900×560 pixels.
    pub fn new(curve: ThreadCurve) -> ThreadsPlot {
        ThreadsPlot {
            curve,
            title: "time per element against threads".into(),
            size: (900, 560),
        }
    }

    /// The series: `operators`, `queueing`, and `simulation` if every
    /// point has one.
    pub fn series(&self) -> Vec<Series> {
        let p = &self.curve.points;
        let of = |name: &str, f: &dyn Fn(&super::sweep::ThreadPoint) -> f64| {
            Series::new(name, p.iter().map(|q| (q.count as f64, f(q))).collect())
        };
        let mut out = vec![
            of("operators", &|q| q.operators),
            of("queueing", &|q| q.queueing),
        ];
        if !p.is_empty() && p.iter().all(|q| q.simulation.is_some()) {
            out.push(of("simulation", &|q| q.simulation.unwrap_or(f64::NAN)));
        }
        out
    }
}

impl sealed::Draw for ThreadsPlot {
    fn check(&self) -> Result<(), PlotError> {
        ranges(&self.series(), false).map(|_| ())
    }

    fn size(&self) -> (u32, u32) {
        self.size
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        let series = self.series();
        let (x, (_, y_hi)) = ranges(&series, false)?;
        let y_top = if y_hi > 0.0 { y_hi * 1.1 } else { 1.0 };
        root.fill(&WHITE).map_err(draw_error)?;
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, ("sans-serif", 20))
            .margin(14)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(widened(x, false), 0.0..y_top)
            .map_err(draw_error)?;
        chart
            .configure_mesh()
            .x_desc(format!("{} (count)", self.curve.count))
            .y_desc("time per element (ns)")
            .x_label_formatter(&|v| short(*v))
            .y_label_formatter(&|v| short(*v))
            .draw()
            .map_err(draw_error)?;
        // Times fall with the count: the upper right corner is free.
        draw_series(&mut chart, &series, SeriesLabelPosition::UpperRight)?;
        root.present().map_err(draw_error)
    }
}

/// A simulation's dynamic efficiency per window ([`SimResult::efficiency_svg`]).
#[derive(Clone, Copy, Debug)]
pub struct Efficiency<'a> {
    /// The run.
    pub run: &'a SimResult,
    /// The window, in ns.
    pub window: f64,
}

impl sealed::Draw for Efficiency<'_> {
    fn check(&self) -> Result<(), PlotError> {
        let makespan = self.run.makespan();
        if self.window.is_finite() && self.window > 0.0 && makespan / self.window <= 1e6 {
            Ok(())
        } else {
            Err(PlotError::Window {
                window: self.window,
                makespan,
            })
        }
    }

    fn size(&self) -> (u32, u32) {
        self.run.efficiency_size()
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        Ok(self.run.draw_efficiency(root, self.window)?)
    }
}

/// A simulation's Gantt chart ([`SimResult::gantt_svg`]).
#[derive(Clone, Copy, Debug)]
pub struct Gantt<'a> {
    /// The run.
    pub run: &'a SimResult,
}

impl sealed::Draw for Gantt<'_> {
    fn check(&self) -> Result<(), PlotError> {
        Ok(())
    }

    fn size(&self) -> (u32, u32) {
        self.run.gantt_size()
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        Ok(self.run.draw_gantt(root)?)
    }
}

//! A run's plots as SVG (plotters): dynamic efficiency over time, and a
//! Gantt chart of a flow graph's tasks on its nodes' lanes. The drawing
//! takes any plotters backend, so that [`crate::explore::plot`] renders
//! the same charts to PNG.

use super::{SimError, SimResult};
use plotters::coord::Shift;
use plotters::prelude::*;

/// The most tasks a Gantt chart draws: the first by start time (about
/// 3 MB of SVG); a longer run's chart shows its beginning and says so.
pub const MAX_GANTT_TASKS: usize = 20_000;

/// The size of [`SimResult::efficiency_svg`].
const EFFICIENCY_SIZE: (u32, u32) = (800, 400);

fn plot_error(e: impl std::fmt::Display) -> SimError {
    SimError::Plot(e.to_string())
}

impl SimResult {
    /// Dynamic efficiency per window of `window` ns ([`SimResult::dynamic_efficiency`]),
    /// plotted against time in ms, as an SVG document.
    ///
    /// ```
    /// use pattern_core::machine::Machine;
    /// use pattern_core::sim::{Simulation, TaskGraph};
    ///
    /// let mut g = TaskGraph::new();
    /// let a = g.compute(0, 4e6, &[]);
    /// g.compute(1, 2e6, &[a]);
    /// let r = Simulation::graph(&g, &Machine::new(2, 1)).run()?;
    /// let svg = r.efficiency_svg(1e6)?;
    /// assert!(svg.starts_with("<svg") && svg.contains("dynamic efficiency"));
    /// # Ok::<(), pattern_core::sim::SimError>(())
    /// ```
    pub fn efficiency_svg(&self, window: f64) -> Result<String, SimError> {
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, EFFICIENCY_SIZE).into_drawing_area();
            self.draw_efficiency(&root, window)?;
        }
        Ok(out)
    }

    /// A Gantt chart of a flow graph's run: a row per lane of each node
    /// (compute steps, blue) and of each node's outgoing link (transfers,
    /// orange), time in ms, as an SVG document. A design's run keeps no
    /// tasks: its chart is empty. At most [`MAX_GANTT_TASKS`] tasks are
    /// drawn, the first by start time; the caption says so
    /// ([`SimResult::gantt_drawn`]).
    pub fn gantt_svg(&self) -> Result<String, SimError> {
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, self.gantt_size()).into_drawing_area();
            self.draw_gantt(&root)?;
        }
        Ok(out)
    }

    /// The size of [`SimResult::efficiency_svg`].
    #[cfg(feature = "explore")]
    pub(crate) fn efficiency_size(&self) -> (u32, u32) {
        EFFICIENCY_SIZE
    }

    /// The tasks the Gantt chart draws and the run's tasks: all of them,
    /// or the first [`MAX_GANTT_TASKS`] by start time.
    pub fn gantt_drawn(&self) -> (usize, usize) {
        let total = self.tasks.len();
        (total.min(MAX_GANTT_TASKS), total)
    }

    /// The lanes of the tasks drawn, by start time.
    fn drawn_lanes(&self) -> Vec<(usize, usize)> {
        let mut lanes = self.lanes();
        lanes.truncate(MAX_GANTT_TASKS);
        lanes
    }

    /// The rows of the Gantt chart (at least one).
    fn gantt_rows(&self) -> usize {
        self.drawn_lanes()
            .iter()
            .map(|&(t, lane)| self.row(t, lane))
            .max()
            .map_or(1, |r| r + 1)
    }

    /// The size of [`SimResult::gantt_svg`]: 14 pixels a row, within
    /// bounds.
    pub(crate) fn gantt_size(&self) -> (u32, u32) {
        (1000, (80 + 14 * self.gantt_rows()).clamp(200, 4000) as u32)
    }

    /// Draws [`SimResult::efficiency_svg`]'s chart on `root`, any backend.
    pub(crate) fn draw_efficiency<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        window: f64,
    ) -> Result<(), SimError> {
        if self.makespan() / window > super::result::MAX_WINDOWS {
            return Err(SimError::Plot(format!(
                "a window of {window} ns cuts the run of {} ns into more than 2^20 windows: give a wider one",
                self.makespan()
            )));
        }
        let points = self.dynamic_efficiency(window);
        let end = (self.makespan() / 1e6).max(1e-9);
        root.fill(&WHITE).map_err(plot_error)?;
        let mut chart = ChartBuilder::on(root)
            .caption("dynamic efficiency", ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(48)
            .build_cartesian_2d(0.0..end, 0.0..1.0)
            .map_err(plot_error)?;
        chart
            .configure_mesh()
            .x_desc("time (ms)")
            .y_desc("busy fraction of the cores")
            .draw()
            .map_err(plot_error)?;
        // A step per window: flat over the window, at its efficiency.
        let steps = points.iter().flat_map(|&(t, e)| {
            let t1 = ((t + window) / 1e6).min(end);
            [(t / 1e6, e), (t1, e)]
        });
        chart
            .draw_series(LineSeries::new(steps, &BLUE))
            .map_err(plot_error)?;
        root.present().map_err(plot_error)
    }

    /// Draws [`SimResult::gantt_svg`]'s chart on `root`, any backend.
    pub(crate) fn draw_gantt<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> Result<(), SimError> {
        let lanes = self.drawn_lanes();
        let rows = self.gantt_rows();
        let (drawn, total) = self.gantt_drawn();
        let (end, caption) = if drawn < total {
            let last = lanes.iter().map(|&(t, _)| self.tasks[t].finish);
            (
                last.fold(0.0, f64::max),
                format!("tasks on the nodes' cores and links (the first {drawn} of {total})"),
            )
        } else {
            (
                self.makespan(),
                "tasks on the nodes' cores and links".to_string(),
            )
        };
        let end = (end / 1e6).max(1e-9);
        root.fill(&WHITE).map_err(plot_error)?;
        let mut chart = ChartBuilder::on(root)
            .caption(caption, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(48)
            .build_cartesian_2d(0.0..end, 0.0..rows as f64)
            .map_err(plot_error)?;
        chart
            .configure_mesh()
            .x_desc("time (ms)")
            .y_desc("lane")
            .disable_y_mesh()
            .y_labels(rows.clamp(1, 24) + 1)
            // Lanes are whole rows: no label between two.
            .y_label_formatter(&|v| {
                if v.fract() == 0.0 {
                    format!("{v:.0}")
                } else {
                    String::new()
                }
            })
            .draw()
            .map_err(plot_error)?;
        let bars = lanes.iter().map(|&(t, lane)| {
            let row = self.row(t, lane) as f64;
            let task = &self.tasks[t];
            let color = if task.is_compute() {
                BLUE.mix(0.7).filled()
            } else {
                RGBColor(230, 140, 30).mix(0.7).filled()
            };
            Rectangle::new(
                [
                    (task.start / 1e6, row + 0.1),
                    (task.finish / 1e6, row + 0.9),
                ],
                color,
            )
        });
        chart.draw_series(bars).map_err(plot_error)?;
        root.present().map_err(plot_error)
    }
}

#[cfg(test)]
mod tests {
    use crate::machine::Machine;
    use crate::sim::{MAX_WINDOWS, SimError, Simulation, TaskGraph};

    /// A window that cuts the run into more windows than can be held is
    /// an error for the plot and no points for the series, not an
    /// allocation of 4·10^9 of them (the fuzz driver's `cli` target found
    /// a run of 3.9e54 ns plotted in windows of 1516 ns).
    #[test]
    fn too_narrow_a_window_is_refused() {
        let mut g = TaskGraph::new();
        g.compute(0, 4e6, &[]);
        let r = Simulation::graph(&g, &Machine::new(1, 1)).run().unwrap();
        assert!(r.dynamic_efficiency(1e-3).is_empty());
        let e = r.efficiency_svg(1e-3).unwrap_err();
        assert!(
            matches!(e, SimError::Plot(ref m) if m.contains("2^20 windows")),
            "{e}"
        );
        // At the limit, every window is there.
        let window = 4e6 / MAX_WINDOWS;
        assert_eq!(r.dynamic_efficiency(window).len(), 1 << 20);
        assert!(r.efficiency_svg(1e6).is_ok());
    }
}

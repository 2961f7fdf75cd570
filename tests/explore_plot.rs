//! The plots render: SVG documents with the series' names, the axes'
//! labels and one polyline point per sample; PNG images of the size asked;
//! bad input is an error.

use pattern_core::explore::plot::{
    CostCurves, Efficiency, Gantt, Plot, PlotError, Series, ThreadsPlot,
};
use pattern_core::explore::sweep::{Axis, ThreadSweep};
use pattern_core::machine::Machine;
use pattern_core::sim::{Simulation, TaskGraph};
use pattern_core::{Design, Expr};

/// The polylines of an SVG document whose attributes contain `needle`,
/// each as its number of points.
fn polylines(svg: &str, needle: &str) -> Vec<usize> {
    svg.split("<polyline")
        .skip(1)
        .map(|rest| &rest[..rest.find("/>").unwrap()])
        .filter(|attrs| attrs.contains(needle))
        .map(|attrs| {
            let start = attrs.find("points=\"").unwrap() + 8;
            let end = start + attrs[start..].find('"').unwrap();
            attrs[start..end].split_whitespace().count()
        })
        .collect()
}

/// The texts of an SVG document.
fn texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .map(|rest| {
            let start = rest.find('>').unwrap() + 1;
            let end = rest.find("</text>").unwrap();
            rest[start..end].trim().to_string()
        })
        .collect()
}

/// Width and height of a PNG, after checking its signature and header.
fn png_size(png: &[u8]) -> (u32, u32) {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(&png[12..16], b"IHDR");
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    (be(&png[16..20]), be(&png[20..24]))
}

fn curves() -> CostCurves {
    let pool = Expr::parse("1034.17*x*log2(x)/4").unwrap();
    let pair = Expr::parse("536.185*x").unwrap();
    let x = Axis::parse("x", "2..1e6:25:log").unwrap();
    CostCurves::of_models(
        &[
            ("tpool[4](qsort)", &pool),
            ("tpool[2](seq(inc, inc))", &pair),
        ],
        &x,
        &[],
    )
    .unwrap()
    .crossovers(&[2f64.powf(4.0 * 536.185 / 1034.17), 1000.0])
}

#[test]
fn cost_curves_render_to_svg_and_png() {
    let plot = curves();
    let svg = plot.svg().unwrap();
    let t = texts(&svg);
    for label in [
        "tpool[4](qsort)",
        "tpool[2](seq(inc, inc))",
        "x (elements)",
        "time per element (ns)",
        "time per element",
        "x = 4.2102",
        "x = 1000",
    ] {
        assert!(t.iter().any(|s| s == label), "no text `{label}` in {t:?}");
    }
    // One line per series with a point per sample; one line per mark.
    assert_eq!(polylines(&svg, "stroke=\"#1F77B4\""), [25]);
    assert_eq!(polylines(&svg, "stroke=\"#D62728\""), [25]);
    assert_eq!(polylines(&svg, "opacity=\"0.6\""), [2, 2]);
    let png = plot.clone().size(640, 360).png().unwrap();
    assert_eq!(png_size(&png), (640, 360));
    assert_eq!(png_size(&plot.png().unwrap()), (900, 560));
}

/// The texts of an SVG document starting with `prefix`, each with its
/// box `(left, top, right, bottom)`: plotters writes `x`, `y` (the top,
/// `dy = 0.76em` puts the baseline below it) and the font size in pixels,
/// anchored at the start; a sans-serif glyph is at most 0.6 em wide on
/// average over digits and signs, and a line 1 em high.
fn text_boxes(svg: &str, prefix: &str) -> Vec<(String, (f64, f64, f64, f64))> {
    let attr = |attrs: &str, name: &str| -> f64 {
        let key = format!(" {name}=\"");
        let start = attrs.find(&key).unwrap() + key.len();
        let end = start + attrs[start..].find('"').unwrap();
        attrs[start..end].parse().unwrap()
    };
    svg.split("<text")
        .skip(1)
        .filter_map(|rest| {
            let close = rest.find('>').unwrap();
            let attrs = &rest[..close];
            let text = rest[close + 1..rest.find("</text>").unwrap()].trim();
            if !text.starts_with(prefix) {
                return None;
            }
            assert!(attrs.contains("text-anchor=\"start\""), "{attrs}");
            let (x, y, size) = (attr(attrs, "x"), attr(attrs, "y"), attr(attrs, "font-size"));
            let width = 0.6 * size * text.chars().count() as f64;
            Some((text.to_string(), (x, y, x + width, y + size)))
        })
        .collect()
}

#[test]
fn labels_of_close_crossovers_do_not_overlap() {
    let marks = [4.2102, 10.114, 5.5, 1000.0, 4.2102];
    let svg = curves().crossovers(&marks).svg().unwrap();
    let boxes = text_boxes(&svg, "x = ");
    let labels: Vec<&str> = boxes.iter().map(|(t, _)| t.as_str()).collect();
    // The repeated mark is labelled once.
    assert_eq!(labels.len(), 4, "{labels:?}");
    for want in ["x = 4.2102", "x = 10.114", "x = 5.5", "x = 1000"] {
        assert!(labels.contains(&want), "no `{want}` in {labels:?}");
    }
    for (i, (p, a)) in boxes.iter().enumerate() {
        for (q, b) in &boxes[i + 1..] {
            let apart = a.2 <= b.0 || b.2 <= a.0 || a.3 <= b.1 || b.3 <= a.1;
            assert!(apart, "`{p}` {a:?} overlaps `{q}` {b:?}");
        }
    }
    // Each label starts at its mark, right of the line: the labels keep
    // the marks' order left to right.
    let left = |t: &str| boxes.iter().find(|(l, _)| l == t).unwrap().1.0;
    assert!(left("x = 4.2102") < left("x = 5.5"));
    assert!(left("x = 5.5") < left("x = 10.114"));
    assert!(left("x = 10.114") < left("x = 1000"));
}

#[test]
fn threads_plot_shows_the_three_predictions() {
    let d = Design::parse("a = 100*x; b = 30*x; pipe(tpool[n](a), b)").unwrap();
    let curve = ThreadSweep::new(&d, "n", &[1, 2, 3, 4, 5, 6], Machine::new(1, 4))
        .at(&[("x", 10.0)])
        .simulate(200)
        .run()
        .unwrap();
    let plot = ThreadsPlot::new(curve.clone());
    let svg = plot.svg().unwrap();
    let t = texts(&svg);
    for label in [
        "operators",
        "queueing",
        "simulation",
        "n (count)",
        "time per element (ns)",
    ] {
        assert!(t.iter().any(|s| s == label), "no text `{label}` in {t:?}");
    }
    for color in ["#1F77B4", "#D62728", "#2CA02C"] {
        assert_eq!(
            polylines(&svg, &format!("stroke=\"{color}\"")),
            [6],
            "{color}"
        );
    }
    assert_eq!(png_size(&plot.png().unwrap()), (900, 560));
    // Without a simulation, two series.
    let mut two = curve;
    two.points.iter_mut().for_each(|p| p.simulation = None);
    assert_eq!(ThreadsPlot::new(two).series().len(), 2);
}

#[test]
fn simulation_plots_are_the_simulators_own() {
    let mut g = TaskGraph::new();
    let a = g.compute(0, 4e6, &[]);
    let b = g.compute(0, 2e6, &[]);
    g.compute(1, 3e6, &[a, b]);
    let run = Simulation::graph(&g, &Machine::new(2, 2)).run().unwrap();
    let eff = Efficiency {
        run: &run,
        window: 1e6,
    };
    assert_eq!(eff.svg().unwrap(), run.efficiency_svg(1e6).unwrap());
    assert_eq!(png_size(&eff.png().unwrap()), (800, 400));
    let gantt = Gantt { run: &run };
    let svg = gantt.svg().unwrap();
    assert_eq!(svg, run.gantt_svg().unwrap());
    assert!(texts(&svg).iter().any(|s| s == "lane"));
    let (w, h) = png_size(&gantt.png().unwrap());
    assert_eq!(w, 1000);
    assert!(svg.contains(&format!("height=\"{h}\"")));
    // A design's run, traced.
    let d = Design::parse("a = 3*x; b = x; pipe(tpool[2](a), b)").unwrap();
    let run = Simulation::new(&d, &Machine::new(1, 2))
        .at(&[("x", 10.0)])
        .elements(20)
        .trace(true)
        .run()
        .unwrap();
    assert!(Gantt { run: &run }.svg().unwrap().contains("<rect"));
}

#[test]
fn bad_input_is_an_error() {
    let ok = vec![(1.0, 1.0), (10.0, 5.0)];
    let plot = |series: Vec<Series>| CostCurves::new(series).svg();
    assert_eq!(plot(vec![]), Err(PlotError::NoSeries));
    assert_eq!(
        plot(vec![Series::new("a", ok.clone()), Series::new("b", vec![])]),
        Err(PlotError::EmptySeries("b".into()))
    );
    assert_eq!(
        plot(vec![Series::new("a", vec![(1.0, 1.0), (0.0, 2.0)])]),
        Err(PlotError::NotPositive {
            series: "a".into(),
            x: 0.0,
            y: 2.0
        })
    );
    assert_eq!(
        plot(vec![Series::new("a", vec![(1.0, -1.0)])]),
        Err(PlotError::NotPositive {
            series: "a".into(),
            x: 1.0,
            y: -1.0
        })
    );
    assert!(matches!(
        plot(vec![Series::new("a", vec![(1.0, f64::NAN)])]),
        Err(PlotError::NotFinite { .. })
    ));
    assert!(matches!(
        CostCurves::new(vec![Series::new("a", vec![(1.0, f64::INFINITY)])]).png(),
        Err(PlotError::NotFinite { .. })
    ));
    assert_eq!(
        CostCurves::new(vec![Series::new("a", ok.clone())])
            .crossovers(&[20.0])
            .svg(),
        Err(PlotError::Crossover {
            x: 20.0,
            lo: 1.0,
            hi: 10.0
        })
    );
    assert!(matches!(
        CostCurves::new(vec![Series::new("a", ok.clone())])
            .crossovers(&[f64::NAN])
            .png(),
        Err(PlotError::Crossover { .. })
    ));
    assert_eq!(
        CostCurves::new(vec![Series::new("a", ok.clone())])
            .size(10, 400)
            .png(),
        Err(PlotError::Size(10, 400))
    );
    assert!(matches!(
        CostCurves::new(vec![Series::new("a", ok.clone())]).save(std::path::Path::new("plot.jpg")),
        Err(PlotError::Format(_))
    ));
    // One point, or a flat line, still draws.
    assert!(plot(vec![Series::new("a", vec![(3.0, 3.0)])]).is_ok());
    // A model that is not finite on the axis.
    let x = Axis::parse("x", "1..4").unwrap();
    let log = Expr::parse("log2(x - 1)").unwrap();
    assert!(matches!(
        CostCurves::of_models(&[("m", &log)], &x, &[]),
        Err(PlotError::Sweep(_))
    ));
    // Windows of a simulation's efficiency.
    let mut g = TaskGraph::new();
    g.compute(0, 1e6, &[]);
    let run = Simulation::graph(&g, &Machine::new(1, 1)).run().unwrap();
    for window in [0.0, -1.0, f64::NAN, 1e-3] {
        assert!(
            matches!(
                Efficiency { run: &run, window }.svg(),
                Err(PlotError::Window { .. })
            ),
            "{window}"
        );
    }
}

/// Curves at the ends of the floating-point numbers render (plotters'
/// log ticks looped forever on a range from 4.9e-324 halved to 0; found by
/// the fuzz driver's `cli` target through `pattern plot`).
#[test]
fn curves_of_subnormal_and_huge_times_render() {
    let x = Axis::parse("x", "2..1e6:5:log").unwrap();
    for cost in [
        "4.9e-324",
        "1e-320 * x",
        "1.7976931348623157e308",
        "1e300 * x",
    ] {
        let model = Expr::parse(cost).unwrap();
        let svg = CostCurves::of_models(&[("a", &model)], &x, &[])
            .unwrap()
            .svg()
            .unwrap();
        assert_eq!(polylines(&svg, "stroke=\"#1F77B4\""), [5], "{cost}");
    }
}

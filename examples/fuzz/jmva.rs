//! The `jmva` target: JMT's JMVA models as `pattern mva` reads them
//! (`src/cli/jmva/read.rs`), generated with the values that break readers
//! and solvers, half of them damaged (spans cut, moved or replaced, XML's
//! own characters inserted); what reads is written back and must read
//! back equal, is solved, and its figures checked.

use crate::generate;
use pattern::cli::jmva::solve::solve;
use pattern::cli::jmva::{ClassKind, read, write};
use pattern::cli::mva::ApproxMethod;
use rand::Rng;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;

/// Numbers of every kind a JMVA file may hold, good and bad.
const VALUES: &[&str] = &[
    "0", "1", "0.5", "2.0", "1.0E-7", "3", "1e308", "1e-320", "-1", "-0", "NaN", "Infinity", "inf",
    "", " 2 ", "0x10", "1,5", "4.0",
];

/// Populations, good and bad.
const POPULATIONS: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "5",
    "1.0",
    "1.5",
    "-2",
    "1e3",
    "100000",
    "9007199254740992",
    "9007199254740993",
    "18446744073709551616",
    "",
];

fn value(rng: &mut ChaCha8Rng) -> String {
    // Mostly good numbers: a model of a dozen values would hardly ever
    // read otherwise.
    if rng.random_bool(0.97) {
        format!("{}", rng.random_range(0.0..2.0f64))
    } else {
        VALUES.choose(rng).expect("values").to_string()
    }
}

/// A random JMVA model, well formed or nearly.
pub fn model(rng: &mut ChaCha8Rng) -> String {
    let classes = if rng.random_bool(0.05) {
        0
    } else {
        rng.random_range(1..4)
    };
    let open = rng.random_bool(0.3);
    // Names with characters an attribute must escape to read back whole.
    let odd = if rng.random_bool(0.1) {
        "&#10;&#9;&amp; &lt;&quot;"
    } else {
        ""
    };
    let mut out =
        String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<model>\n<parameters>\n");
    out.push_str(&format!("<classes number=\"{classes}\">\n"));
    for c in 0..classes {
        if open ^ rng.random_bool(0.2) {
            out.push_str(&format!(
                "<openclass name=\"c{c}{odd}\" rate=\"{}\"/>\n",
                value(rng)
            ));
        } else {
            let n = if rng.random_bool(0.95) {
                rng.random_range(0..6).to_string()
            } else {
                POPULATIONS.choose(rng).expect("populations").to_string()
            };
            out.push_str(&format!(
                "<closedclass name=\"c{c}{odd}\" population=\"{n}\"/>\n"
            ));
        }
    }
    out.push_str("</classes>\n<stations>\n");
    for s in 0..rng
        .random_range(0..5)
        .max(usize::from(rng.random_bool(0.95)))
    {
        let (tag, inner) = match rng.random_range(0..4) {
            0 => ("delaystation", "servicetime"),
            1 => ("ldstation", "servicetimes"),
            _ => ("listation", "servicetime"),
        };
        let servers = if rng.random_bool(0.9) {
            ["1", "2", "7"].choose(rng)
        } else {
            ["0", "-1", "300", "2.5", ""].choose(rng)
        };
        let servers = servers.expect("servers");
        out.push_str(&format!(
            "<{tag} name=\"s{s}{odd}\" servers=\"{servers}\">\n<servicetimes>\n"
        ));
        for c in 0..classes {
            let times: Vec<String> = (0..if inner == "servicetimes" {
                rng.random_range(1..5)
            } else {
                1
            })
                .map(|_| value(rng))
                .collect();
            out.push_str(&format!(
                "<{inner} customerclass=\"c{c}{odd}\">{}</{inner}>\n",
                times.join(";")
            ));
        }
        out.push_str("</servicetimes>\n");
        if rng.random_bool(0.8) {
            out.push_str("<visits>\n");
            for c in 0..classes {
                out.push_str(&format!(
                    "<visit customerclass=\"c{c}{odd}\">{}</visit>\n",
                    value(rng)
                ));
            }
            out.push_str("</visits>\n");
        }
        out.push_str(&format!("</{tag}>\n"));
    }
    out.push_str("</stations>\n</parameters>\n</model>\n");
    out
}

/// Damage that XML feels: its own characters and spans moved about.
fn damaged(rng: &mut ChaCha8Rng, text: &str) -> String {
    let mut text = generate::mutate(rng, text);
    for _ in 0..rng.random_range(0..3) {
        let mut at = rng.random_range(0..=text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let piece = [
            "<",
            ">",
            "/",
            "\"",
            "&",
            "&amp;",
            "&#0;",
            "]]>",
            "<![CDATA[",
            "<x>",
        ]
        .choose(rng)
        .expect("pieces");
        text.insert_str(at, piece);
    }
    text
}

/// An input: a model, damaged half the time.
pub fn input(rng: &mut ChaCha8Rng) -> String {
    let text = model(rng);
    if rng.random_bool(0.5) {
        text
    } else {
        damaged(rng, &text)
    }
}

/// Reads the input; what reads is written back and read again (equal),
/// solved within a small budget, and its figures checked: finite, Little's
/// law at every station, every closed class's jobs somewhere.
pub fn run(text: &str, _: &mut ChaCha8Rng) -> Result<(), String> {
    let Ok(model) = read::parse("fuzz.jmva", text) else {
        return Ok(());
    };
    let back = read::parse("written.jmva", &write::write(&model, None))
        .map_err(|e| format!("a model written back does not read: {e}"))?;
    if back != model {
        return Err("the model read back differs from the one written".into());
    }
    // A small budget for exact MVA, and the approximation, where there
    // are closed classes (an open model takes neither).
    let closed = (model.classes.iter()).any(|c| matches!(c.kind, ClassKind::Closed(_)));
    let limit = closed.then_some(1e6);
    let runs: &[Option<ApproxMethod>] = if closed {
        &[None, Some(ApproxMethod::Linearizer)]
    } else {
        &[None]
    };
    for &approx in runs {
        let Ok(solved) = solve(&model, approx, limit) else {
            continue;
        };
        for (k, row) in solved.figures.iter().enumerate() {
            for (c, f) in row.iter().enumerate() {
                let little = f.throughput * f.residence_time;
                let finite = [
                    f.throughput,
                    f.residence_time,
                    f.queue_length,
                    f.utilization,
                ]
                .iter()
                .all(|v| v.is_finite());
                if !finite || (little - f.queue_length).abs() > 1e-6 * f.queue_length.max(1.0) {
                    return Err(format!("station {k}, class {c}: {f:?}"));
                }
            }
        }
        for (c, class) in model.classes.iter().enumerate() {
            if let ClassKind::Closed(n) = class.kind {
                let jobs: f64 = solved.figures.iter().map(|row| row[c].queue_length).sum();
                if (jobs - n as f64).abs() > 1e-6 * (n as f64).max(1.0) {
                    return Err(format!(
                        "class {c}: {jobs} jobs at the stations, population {n}"
                    ));
                }
            }
        }
        let written = write::write(&model, Some(&solved));
        let again = read::parse("solved.jmva", &written)
            .map_err(|e| format!("a solved model written back does not read: {e}"))?;
        if again != model {
            return Err("the solved model read back differs from the one written".into());
        }
    }
    Ok(())
}

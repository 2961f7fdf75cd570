//! Random inputs: well-formed ones from small grammars, with the extreme
//! numbers, counts and shapes that break models, and mutations of them.

use rand::Rng;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;

const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1",
    "2",
    "3",
    "0.5",
    "0.125",
    "8",
    "768",
    "1024",
    "1e308",
    "1.7976931348623157e308",
    "1e-308",
    "4.9e-324",
    "1e-320",
    "1e400",
    "1e999",
    "3.529e7",
    "1034.17",
    "0.01",
    "-1",
    "64",
    "65",
    "1e15",
    "18446744073709551615",
];
const VARIABLES: &[&str] = &["x", "y", "z", "p", "n", "m", "o"];
const FUNCTIONS: &[&str] = &[
    "log2", "ln", "sqrt", "ceil", "floor", "max", "min", "log", "f", "send",
];

/// A number: one of the troublesome ones or a random one.
fn number(rng: &mut ChaCha8Rng) -> String {
    match rng.random_range(0..4) {
        0 => format!("{:e}", f64::from_bits(rng.random::<u64>()).abs()),
        1 => rng.random_range(0..100u32).to_string(),
        _ => NUMBERS.choose(rng).expect("numbers").to_string(),
    }
}

/// A cost expression of at most `depth` levels.
pub fn expr(rng: &mut ChaCha8Rng, depth: u32) -> String {
    if depth == 0 || rng.random_bool(0.25) {
        return if rng.random_bool(0.5) {
            number(rng)
        } else {
            VARIABLES.choose(rng).expect("variables").to_string()
        };
    }
    let d = depth - 1;
    match rng.random_range(0..12) {
        0 => format!("{} + {}", expr(rng, d), expr(rng, d)),
        1 => format!("{} - {}", expr(rng, d), expr(rng, d)),
        2 => format!("{} * {}", expr(rng, d), expr(rng, d)),
        3 => format!("{} / ({})", expr(rng, d), expr(rng, d)),
        4 => format!(
            "({})^{}",
            expr(rng, d),
            ["2", "8", "0.5", "-1", "1024", "1/3", "x"]
                .choose(rng)
                .expect("exponents")
        ),
        5 => format!("-({})", expr(rng, d)),
        // A power of a sum: expanded up to a cap.
        6 => format!(
            "({} + {} + 1)^{}",
            expr(rng, d),
            expr(rng, d),
            rng.random_range(2..10)
        ),
        7 => {
            let f = FUNCTIONS.choose(rng).expect("functions");
            let n = match *f {
                "max" | "min" | "f" | "send" => rng.random_range(1..4),
                "log" => 2,
                _ => 1,
            };
            let args: Vec<String> = (0..n).map(|_| expr(rng, d)).collect();
            format!("{f}({})", args.join(", "))
        }
        // Wide sums and products: the linear-time paths.
        8 => {
            let n = rng.random_range(2..200);
            let op = if rng.random_bool(0.5) { " + " } else { " * " };
            (0..n).map(|_| expr(rng, 0)).collect::<Vec<_>>().join(op)
        }
        // Nesting around the parser's limit.
        9 if rng.random_bool(0.1) => {
            let n = rng.random_range(90..120);
            format!("{}{}{}", "(".repeat(n), expr(rng, 0), ")".repeat(n))
        }
        _ => format!("({})", expr(rng, d)),
    }
}

/// A count: a number, a name, or an extreme.
fn count(rng: &mut ChaCha8Rng) -> String {
    match rng.random_range(0..6) {
        0 => [
            "0",
            "1",
            "18446744073709551615",
            "9223372036854775808",
            "4294967296",
        ]
        .choose(rng)
        .expect("counts")
        .to_string(),
        1 => ["n", "threads", "g"]
            .choose(rng)
            .expect("names")
            .to_string(),
        _ => rng.random_range(1..70u32).to_string(),
    }
}

/// A design: atom definitions, then a term over them.
pub fn design(rng: &mut ChaCha8Rng) -> String {
    let atoms = rng.random_range(1..5);
    let mut text = String::new();
    for i in 0..atoms {
        text.push_str(&format!("a{i} = {}; ", expr(rng, 3)));
    }
    text.push_str(&term(rng, atoms, 4));
    text
}

fn term(rng: &mut ChaCha8Rng, atoms: usize, depth: u32) -> String {
    let atom = |rng: &mut ChaCha8Rng| format!("a{}", rng.random_range(0..atoms));
    if depth == 0 || rng.random_bool(0.2) {
        return atom(rng);
    }
    let d = depth - 1;
    let list = |rng: &mut ChaCha8Rng, n: usize| {
        (0..n)
            .map(|_| term(rng, atoms, d))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let n = rng.random_range(2..4);
    match rng.random_range(0..10) {
        0 => format!("seq({})", list(rng, n)),
        1 => format!("pipe({})", list(rng, n)),
        // Wide pipelines.
        2 => format!(
            "pipe({})",
            (0..rng.random_range(2..300))
                .map(|_| atom(rng))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        3 => format!("tpool[{}]({})", count(rng), term(rng, atoms, d)),
        4 => format!(
            "mapreduce[m = {}, n = {}, d = {}, k = {}]({}, {}, {})",
            count(rng),
            count(rng),
            expr(rng, 1),
            expr(rng, 1),
            term(rng, atoms, d),
            atom(rng),
            term(rng, atoms, d)
        ),
        5 => format!("on[{}]({})", count(rng), term(rng, atoms, d)),
        6 => {
            let n = rng.random_range(1..4);
            let sizes: Vec<String> = (0..n).map(|_| count(rng)).collect();
            format!("par[{}]({})", sizes.join(", "), list(rng, n))
        }
        7 => format!("groups[{}]({})", count(rng), term(rng, atoms, d)),
        8 => format!(
            "seq[redist = {}]({}, {})",
            expr(rng, 1),
            term(rng, atoms, d),
            term(rng, atoms, d)
        ),
        _ => format!("seq({}, {})", term(rng, atoms, d), atom(rng)),
    }
}

/// Extra-P's text format.
pub fn extrap_text(rng: &mut ChaCha8Rng) -> String {
    let params = rng.random_range(1..3);
    let points = rng.random_range(1..8);
    let mut text = String::new();
    for name in &VARIABLES[..params] {
        text.push_str(&format!("PARAMETER {name}\n"));
    }
    text.push_str("POINTS");
    for _ in 0..points {
        let c: Vec<String> = (0..params).map(|_| number(rng)).collect();
        text.push_str(&format!(" ( {} )", c.join(" ")));
    }
    text.push_str("\nREGION main\nMETRIC time\n");
    for _ in 0..points {
        let reps = rng.random_range(1..4);
        let v: Vec<String> = (0..reps).map(|_| number(rng)).collect();
        text.push_str(&format!("DATA {}\n", v.join(" ")));
    }
    text
}

/// Extra-P's JSON formats: current, legacy or JSON Lines.
pub fn extrap_json(rng: &mut ChaCha8Rng) -> String {
    let points = rng.random_range(1..8);
    match rng.random_range(0..3) {
        0 => {
            let ms: Vec<String> = (0..points)
                .map(|_| format!(r#"{{"point": [{}], "values": [{}, {}]}}"#, number(rng), number(rng), number(rng)))
                .collect();
            format!(r#"{{"parameters": ["x"], "measurements": {{"main": {{"time": [{}]}}}}}}"#, ms.join(", "))
        }
        1 => {
            let coords: Vec<String> = (0..points).map(|i| format!(r#"{{"id": {i}, "x": {}}}"#, number(rng))).collect();
            let ms: Vec<String> = (0..points)
                .map(|i| format!(r#"{{"coordinate_id": {i}, "callpath_id": 0, "metric_id": 0, "value": {}}}"#, number(rng)))
                .collect();
            format!(
                r#"{{"parameters": [{{"id": 0, "name": "x"}}], "callpaths": [{{"id": 0, "name": "main"}}], "metrics": [{{"id": 0, "name": "time"}}], "coordinates": [{}], "measurements": [{}]}}"#,
                coords.join(", "),
                ms.join(", ")
            )
        }
        _ => (0..points)
            .map(|_| format!(r#"{{"params": {{"x": {}}}, "value": {}, "callpath": "main", "metric": "time"}}"#, number(rng), number(rng)))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// A Talpas file: JSON Lines with `;` between the fields (a `;` in a call
/// path too).
pub fn talpas(rng: &mut ChaCha8Rng) -> String {
    let points = rng.random_range(1..8);
    (0..points)
        .map(|_| {
            format!(
                r#"{{"parameters":{{"x":{}}};"metric":"time";"callpath":"main;k";"value":{}}}"#,
                number(rng),
                number(rng)
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A machine profile in JSON.
pub fn profile(rng: &mut ChaCha8Rng) -> String {
    let formula = ["linear", "logarithmic", "linear_in_p", "constant", "bogus"]
        .choose(rng)
        .expect("formulas");
    format!(
        r#"{{"name": "m", "unit": "us", "functions": {{"send": {{"formula": "{formula}", "tau": {}, "tau1": {}, "tau2": {}, "t_c": {}}}}}, "contention": "{}"}}"#,
        number(rng),
        number(rng),
        number(rng),
        number(rng),
        expr(rng, 3)
    )
}

/// Random edits of a well-formed input: deletions, insertions, duplicated
/// and truncated spans.
pub fn mutate(rng: &mut ChaCha8Rng, text: &str) -> String {
    const ALPHABET: &[char] = &[
        '(', ')', '[', ']', '{', '}', ',', ';', '=', '+', '-', '*', '/', '^', '.', 'e', '0', '1',
        '9', 'x', 'p', ' ', '"', ':', '\n', '·', '∞',
    ];
    let mut chars: Vec<char> = text.chars().collect();
    for _ in 0..rng.random_range(1..5) {
        if chars.is_empty() {
            chars.push(*ALPHABET.choose(rng).expect("alphabet"));
            continue;
        }
        let at = rng.random_range(0..chars.len());
        let len = rng.random_range(1..=(chars.len() - at).min(8));
        match rng.random_range(0..5) {
            0 => {
                chars.drain(at..at + len);
            }
            1 => chars.insert(at, *ALPHABET.choose(rng).expect("alphabet")),
            2 => {
                let span: Vec<char> = chars[at..at + len].to_vec();
                let to = rng.random_range(0..=chars.len());
                chars.splice(to..to, span);
            }
            3 => chars.truncate(at),
            _ => chars[at] = *ALPHABET.choose(rng).expect("alphabet"),
        }
    }
    chars.into_iter().collect()
}

/// A demand or a rate: everyday, zero, extreme or no number at all.
fn demand(rng: &mut ChaCha8Rng) -> String {
    match rng.random_range(0..8) {
        0 => ["0", "-1", "NaN", "inf", "1e308", "1e-320", "-0"]
            .choose(rng)
            .expect("extremes")
            .to_string(),
        _ => format!("{}", rng.random_range(0.0..5.0f64)),
    }
}

/// A closed network in the fuzz driver's own line format (not a library
/// format): the population, then one station per line —
/// `queue NAME D`, `delay NAME D`, `multi NAME C D`, `ld NAME D r1,r2,..`.
pub fn network(rng: &mut ChaCha8Rng) -> String {
    let population = match rng.random_range(0..6) {
        0 => ["0", "1", "100000", "18446744073709551615"]
            .choose(rng)
            .expect("populations")
            .to_string(),
        _ => rng.random_range(1..300u32).to_string(),
    };
    let mut text = format!("{population}\n");
    for i in 0..rng.random_range(0..7) {
        let name = if rng.random_bool(0.1) {
            "s0".to_string()
        } else {
            format!("s{i}")
        };
        let line = match rng.random_range(0..4) {
            0 => format!("queue {name} {}", demand(rng)),
            1 => format!("delay {name} {}", demand(rng)),
            2 => format!(
                "multi {name} {} {}",
                [0, 1, 2, 7, 300, 100_000].choose(rng).expect("servers"),
                demand(rng)
            ),
            _ => {
                let rates: Vec<String> = (0..rng.random_range(1..5)).map(|_| demand(rng)).collect();
                format!("ld {name} {} {}", demand(rng), rates.join(","))
            }
        };
        text.push_str(&line);
        text.push('\n');
    }
    text
}

/// A machine file: one to three groups of nodes (counts and cores small,
/// zero or huge), a star or racks, a sharing rule, and sometimes a waiting
/// part, with everyday and extreme numbers.
pub fn machine(rng: &mut ChaCha8Rng) -> String {
    let small = |rng: &mut ChaCha8Rng| match rng.random_range(0..10) {
        0 => ["0", "1e20", "18446744073709551616", "-1", "2.5"]
            .choose(rng)
            .expect("extremes")
            .to_string(),
        _ => rng.random_range(1..6u32).to_string(),
    };
    let groups: Vec<String> = (0..rng.random_range(1..4))
        .map(|_| {
            format!(
                r#"{{"count": {}, "cores": {}, "speed": {}}}"#,
                small(rng),
                small(rng),
                demand(rng)
            )
        })
        .collect();
    let link = |rng: &mut ChaCha8Rng| {
        format!(
            r#"{{"latency_ns": {}, "bandwidth_bytes_per_ns": {}}}"#,
            demand(rng),
            demand(rng)
        )
    };
    let racks = if rng.random_bool(0.4) {
        format!(
            r#", "topology": "racks", "racks": {{"nodes_per_rack": {}, "uplink": {}, "backbone": {}}}"#,
            small(rng),
            link(rng),
            link(rng)
        )
    } else {
        String::new()
    };
    let sharing = ["max-min", "equal-share", "fair"]
        .choose(rng)
        .expect("rules");
    let waiting = if rng.random_bool(0.3) {
        format!(
            r#", "runtime": "rayon", "waiting": {{"rayon": {{"handoff_ns": {}, "take_ns": {}, "spin_ns": {}, "pinned": {}}}}}"#,
            demand(rng),
            demand(rng),
            demand(rng),
            rng.random_bool(0.5)
        )
    } else {
        String::new()
    };
    format!(
        r#"{{"nodes": [{}], "network": {{"latency_ns": {}, "bandwidth_bytes_per_ns": {}, "sharing": "{sharing}"{racks}}}{waiting}}}"#,
        groups.join(", "),
        demand(rng),
        demand(rng)
    )
}

/// A network file of `pattern mva` (JSON, `src/cli/network.rs`): stations of
/// every kind with everyday and extreme demands, servers and rates, a
/// population or none, and now and then a key the format does not have.
pub fn network_file(rng: &mut ChaCha8Rng) -> String {
    let stations: Vec<String> = (0..rng.random_range(0..6))
        .map(|i| {
            let name = if rng.random_bool(0.1) { 0 } else { i };
            let kind = match rng.random_range(0..5) {
                0 => r#""kind": "queue""#.to_string(),
                1 => r#""kind": "delay""#.to_string(),
                2 => format!(
                    r#""kind": "multi_server", "servers": {}"#,
                    [
                        "0",
                        "1",
                        "2",
                        "7",
                        "300",
                        "100000",
                        "-1",
                        "2.5",
                        "18446744073709551616"
                    ]
                    .choose(rng)
                    .expect("servers")
                ),
                3 => {
                    let rates: Vec<String> = (0..rng.random_range(0..5))
                        .map(|_| json_number(rng))
                        .collect();
                    format!(
                        r#""kind": "load_dependent", "rates": [{}]"#,
                        rates.join(", ")
                    )
                }
                _ => r#""kind": "fifo""#.to_string(),
            };
            format!(
                r#"{{"name": "s{name}", {kind}, "demand": {}}}"#,
                json_number(rng)
            )
        })
        .collect();
    let population = match rng.random_range(0..8) {
        0 => String::new(),
        1 => format!(
            r#""population": {}, "#,
            [
                "0",
                "-1",
                "1e3",
                "100000",
                "18446744073709551615",
                "18446744073709551616"
            ]
            .choose(rng)
            .expect("populations")
        ),
        _ => format!(r#""population": {}, "#, rng.random_range(1..300u32)),
    };
    let extra = if rng.random_bool(0.05) {
        r#""think": 1, "#
    } else {
        ""
    };
    format!(
        r#"{{"name": "net", {population}{extra}"stations": [{}]}}"#,
        stations.join(", ")
    )
}

/// A demand or rate as JSON writes it: JSON has no NaN nor infinity, so
/// those are spelled as strings (which the reader must refuse).
fn json_number(rng: &mut ChaCha8Rng) -> String {
    match demand(rng).as_str() {
        "NaN" => "\"NaN\"".into(),
        "inf" => "1e999".into(),
        other => other.to_string(),
    }
}

/// A small design (1–3 atoms, shallow expressions and terms): for the
/// command line, whose commands run a design many times.
pub fn small_design(rng: &mut ChaCha8Rng) -> String {
    let atoms = rng.random_range(1..4);
    let mut text = String::new();
    for i in 0..atoms {
        text.push_str(&format!("a{i} = {}; ", expr(rng, 2)));
    }
    text.push_str(&term(rng, atoms, 2));
    text
}

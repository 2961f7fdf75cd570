//! `pattern fit` beyond reading Extra-P's text: decaying models behind a
//! switch, Talpas files told by their content, where a model stops
//! holding (`--at`, negative from, the model set aside), the point left
//! out, and two models with the change between them.

mod common;

use common::cli::*;

use pattern_core::Expr;

#[test]
fn fit_searches_decaying_models_behind_a_switch() {
    // 5 + 1000·p^(-1/2), noise-free, at p = 2..32.
    let mut text = String::from("PARAMETER p\nPOINTS 2 4 8 16 32\n");
    for p in [2.0f64, 4.0, 8.0, 16.0, 32.0] {
        text.push_str(&format!("DATA {}\n", 5.0 + 1000.0 / p.sqrt()));
    }
    let decaying = temp_file("decaying.txt", &text);
    let plain = json(&["fit", &decaying]);
    assert_eq!(plain["negative_exponents"], false);
    let model = plain["series"][0]["fit"]["model"].as_str().unwrap();
    assert!(!model.contains("^(-1/2)"), "{model}");
    let with = json(&["fit", &decaying, "--negative-exponents"]);
    assert_eq!(with["negative_exponents"], true);
    let model = with["series"][0]["fit"]["model"].as_str().unwrap();
    let expected = Expr::parse("1000 * p^(-1/2) + 5").unwrap();
    assert!(
        Expr::parse(model).unwrap().approx_eq(&expected, 1e-9),
        "{model}"
    );
}

#[test]
fn fit_reads_talpas_files_by_their_content() {
    // Talpas: JSON Lines with `;` between the fields, in a `.txt` file.
    let mut text = String::new();
    for x in [2, 4, 8, 16, 32, 64] {
        for noise in [0.99, 1.0, 1.01] {
            let value = 20.0 * f64::from(x) * noise;
            text.push_str(&format!(
                "{{\"parameters\":{{\"x\":{x}}};\"metric\":\"time\";\"callpath\":\"compute\";\"value\":{value}}}\n"
            ));
        }
    }
    let talpas = temp_file("talpas_linear.txt", &text);
    let doc = json(&["fit", &talpas]);
    let series = &doc["series"][0];
    assert_eq!(series["region"], "compute");
    assert_eq!(series["fit"]["class"], "O(x)", "{doc}");
    // A malformed line is named with its position.
    let broken = temp_file(
        "talpas_broken.txt",
        &text.replacen("\"value\":", "\"value\";", 1),
    );
    let err = fails(&["fit", &broken]);
    assert!(err.contains("line 1, column"), "{err}");
}

#[test]
fn fit_says_where_a_model_stops_holding() {
    // A flat noisy series, and 93.4 − 6.55·log2(p) exactly at p = 2^9..2^14.
    let mut text = String::from("PARAMETER p\nPOINTS 512 1024 2048 4096 8192 16384\n");
    text.push_str("REGION flat\nMETRIC time\n");
    for v in [14.66, 14.22, 15.27, 14.89, 14.63, 14.22] {
        text.push_str(&format!("DATA {v}\n"));
    }
    text.push_str("REGION met3\nMETRIC time\n");
    for k in 9..=14 {
        text.push_str(&format!("DATA {}\n", 93.4 - 6.55 * f64::from(k)));
    }
    let data = temp_file("extrapolate.txt", &text);
    let doc = json(&["fit", &data, "--at", "p=65536"]);
    let flat = &doc["series"][0]["fit"];
    assert_eq!(flat["class"], "O(1)", "{doc}");
    let aside = &flat["set_aside"];
    let model = aside["model"].as_str().unwrap();
    assert!(model.starts_with('-') && model.contains("p^"), "{aside}");
    assert!(aside["negative_from"].as_f64().unwrap() < 16.0 * 16384.0);
    let met = &doc["series"][1]["fit"];
    let root = 2f64.powf(93.4 / 6.55);
    let from = met["extrapolation"]["negative_from"].as_f64().unwrap();
    assert!((from - root).abs() < 1e-6 * root, "{met}");
    assert!(met["set_aside"].is_null());
    let at = &met["at"][0];
    assert_eq!(at["beyond_largest"]["p"], 4.0);
    assert!((at["value"].as_f64().unwrap() - (93.4 - 6.55 * 16.0)).abs() < 1e-9);
    let text = stdout(&run(&["fit", &data, "--at", "p=65536"]));
    assert!(text.contains("4x the largest p measured"), "{text}");
    assert!(text.contains("negative from"), "{text}");
    // Points that do not match the file's parameters are refused.
    let err = fails(&["fit", &data, "--at", "q=4"]);
    assert!(
        err.contains("no parameter `q`") && err.contains("p"),
        "{err}"
    );
    let two = temp_file(
        "two.txt",
        "PARAMETER p\nPARAMETER n\nPOINTS (1 1) (2 1) (4 1)\nDATA 1\nDATA 2\nDATA 3\n",
    );
    let err = fails(&["fit", &two, "--at", "p=8"]);
    assert!(err.contains("`n` has none"), "{err}");
}

#[test]
fn fit_names_the_point_it_leaves_out() {
    // 100·x³ + 1000 at x = 4..64, the value at 16 ten times too low.
    let mut text = String::from("PARAMETER x\nPOINTS 4 8 16 32 64\n");
    for x in [4.0f64, 8.0, 16.0, 32.0, 64.0] {
        let y = 100.0 * x.powi(3) + 1000.0;
        text.push_str(&format!("DATA {}\n", if x == 16.0 { y / 10.0 } else { y }));
    }
    let data = temp_file("outlier.txt", &text);
    let doc = json(&["fit", &data]);
    let fit = &doc["series"][0]["fit"];
    assert_eq!(fit["class"], "O(x^3)", "{fit}");
    assert_eq!(fit["outliers"][0]["point"], serde_json::json!([16.0]));
    assert!((fit["outliers"][0]["expected"].as_f64().unwrap() - 410600.0).abs() < 1e-3);
    let text = stdout(&run(&["fit", &data]));
    assert!(text.contains("left out: x = 16"), "{text}");
    // Extra-P's choices keep every point.
    let doc = json(&["fit", &data, "--extrap-compatible"]);
    assert_eq!(doc["series"][0]["fit"]["outliers"], serde_json::json!([]));
}

#[test]
fn fit_reports_two_models_and_the_change() {
    // log2(p) below 22, p² from it (Extra-P's segmented case, generated).
    let mut text =
        String::from("PARAMETER p\nPOINTS 4 8 12 16 20 24 28 32 36 40\nREGION main\nMETRIC time\n");
    for k in 1..=10 {
        let p = f64::from(4 * k);
        text.push_str(&format!(
            "DATA {}\n",
            if p >= 22.0 { p * p } else { p.log2() }
        ));
    }
    let data = temp_file("segmented.txt", &text);
    let doc = json(&["fit", &data]);
    let s = &doc["series"][0]["fit"]["segments"];
    assert_eq!(s["last_of_first"], 20.0, "{s}");
    assert_eq!(s["first_of_second"], 24.0);
    assert_eq!(s["first"], "log2(p)");
    assert_eq!(s["second"], "p^2");
    let model = Expr::parse(s["model"].as_str().unwrap()).unwrap();
    assert_eq!(model.eval(&[("p", 16.0)]).unwrap(), 4.0);
    assert_eq!(model.eval(&[("p", 28.0)]).unwrap(), 784.0);
    // The alternatives are written in the file's parameter.
    for a in doc["series"][0]["fit"]["alternatives"].as_array().unwrap() {
        assert!(!a["model"].as_str().unwrap().contains('x'), "{a}");
    }
    // One function throughout: no segments.
    let linear = temp_file(
        "linear.txt",
        "PARAMETER p\nPOINTS 1 2 3 4 5 6 7\nDATA 2\nDATA 4\nDATA 6\nDATA 8\nDATA 10\nDATA 12\nDATA 14\n",
    );
    assert!(json(&["fit", &linear])["series"][0]["fit"]["segments"].is_null());
}

#[test]
fn fit_saves_its_models_as_an_extrap_experiment_and_reads_it_back() {
    let kernels = data("kernels.txt");
    let out = temp_file("saved_kernels", "");
    let doc = json(&["fit", &kernels, "--save-experiment", &out]);
    // `.extra-p` is added to a name without extension, as Extra-P does.
    let saved = format!("{out}.extra-p");
    let again = json(&["fit", &saved]);
    assert_eq!(again["parameters"], doc["parameters"]);
    let series = doc["series"].as_array().unwrap();
    assert_eq!(again["series"].as_array().unwrap().len(), series.len());
    for (a, b) in series.iter().zip(again["series"].as_array().unwrap()) {
        // Every repetition is kept: the same points, the same models.
        assert_eq!(a["measurements"], b["measurements"]);
        assert_eq!(a["fit"]["model"], b["fit"]["model"]);
    }
    // Only the region fitted is saved when one is chosen.
    let region = series[0]["region"].as_str().unwrap();
    let one = temp_file("one_region.extra-p", "");
    json(&[
        "fit",
        &kernels,
        "--region",
        region,
        "--save-experiment",
        &one,
    ]);
    assert_eq!(json(&["fit", &one])["series"].as_array().unwrap().len(), 1);
    // A damaged file is an error naming the member at fault.
    let mut bytes = std::fs::read(&saved).unwrap();
    bytes.truncate(bytes.len() - 30);
    let damaged = temp_file("damaged.extra-p", "");
    std::fs::write(&damaged, &bytes).unwrap();
    let err = fails(&["fit", &damaged]);
    assert!(err.contains("not an Extra-P experiment file"), "{err}");
}

#[test]
fn fit_reads_a_cube_directory_with_extraps_options() {
    use common::cube::{Metric, Profile, temp_dir};
    let dir = temp_dir("cli_cube");
    // main → solve, two locations; solve takes 3·p at each.
    for p in [2.0f64, 4.0, 8.0, 16.0, 32.0] {
        let solve = [3.0 * p, 3.0 * p];
        Profile::new(&["main", "solve"], &[(None, 0), (Some(0), 1)], 2)
            .metric(
                Metric::new(0, "time", "EXCLUSIVE", "DOUBLE"),
                &[(0, &[1.0, 1.0]), (1, &solve)],
            )
            .write(&dir, &format!("app.p{p}.r1"), "profile.cubex");
    }
    let path = dir.display().to_string();
    let means = |doc: &serde_json::Value| -> Vec<f64> {
        let points = doc["series"][0]["measurements"].as_array().unwrap();
        points.iter().map(|m| m["mean"].as_f64().unwrap()).collect()
    };
    let weak = json(&["fit", &path, "--region", "main->solve"]);
    assert_eq!(weak["parameters"], serde_json::json!(["p"]));
    assert_eq!(means(&weak), [6.0, 12.0, 24.0, 48.0, 96.0]);
    assert_eq!(weak["series"][0]["fit"]["class"], "O(p)");
    // Strong scaling sums the locations; inclusive adds the callees.
    let strong = json(&[
        "fit",
        &path,
        "--region",
        "main->solve",
        "--scaling",
        "strong",
    ]);
    assert_eq!(means(&strong), [12.0, 24.0, 48.0, 96.0, 192.0]);
    let inclusive = json(&["fit", &path, "--region", "main", "--inclusive"]);
    assert_eq!(means(&inclusive), [7.0, 13.0, 25.0, 49.0, 97.0]);
    // A metric no run has is an error; the options need a directory.
    let err = fails(&["fit", &path, "--metric", "visits"]);
    assert!(err.contains("visits"), "{err}");
    let err = fails(&["fit", &data("kernels.txt"), "--scaling", "strong"]);
    assert!(err.contains("CUBE experiments"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn fit_reads_extrap_3_files_by_their_first_bytes() {
    // Extra-P 3's binary records: p = 2..32, `main` takes 5·p (mean), 5·p + 1 (median).
    let mut b: Vec<u8> = 1i16.to_le_bytes().to_vec();
    let s = |b: &mut Vec<u8>, t: &str| {
        b.extend((t.len() as u32).to_le_bytes());
        b.extend(t.as_bytes());
    };
    let i = |b: &mut Vec<u8>, v: i64| b.extend(v.to_le_bytes());
    s(&mut b, "EXTRAP_EXPERIMENT");
    s(&mut b, "3.0");
    s(&mut b, "Parameter");
    i(&mut b, 0);
    s(&mut b, "p");
    s(&mut b, "Metric");
    i(&mut b, 0);
    s(&mut b, "time");
    s(&mut b, "s");
    s(&mut b, "Region");
    i(&mut b, 0);
    s(&mut b, "main");
    s(&mut b, "a.c");
    i(&mut b, 1);
    s(&mut b, "Callpath");
    for v in [0, 0, -1] {
        i(&mut b, v);
    }
    for (id, p) in [2.0f64, 4.0, 8.0, 16.0, 32.0].into_iter().enumerate() {
        s(&mut b, "Coordinate");
        i(&mut b, id as i64);
        i(&mut b, 1);
        s(&mut b, "p");
        b.extend(p.to_le_bytes());
        s(&mut b, "ExperimentPoint");
        i(&mut b, id as i64);
        i(&mut b, 1);
        for v in [
            5.0 * p,
            0.0,
            0.0,
            0.0,
            5.0 * p + 1.0,
            0.0,
            0.0,
            5.0 * p,
            5.0 * p + 1.0,
        ] {
            b.extend(v.to_le_bytes());
        }
        i(&mut b, 0);
        i(&mut b, 0);
    }
    let path = temp_file("legacy_experiment", "");
    std::fs::write(&path, &b).unwrap();
    let means = |doc: &serde_json::Value| -> Vec<f64> {
        let points = doc["series"][0]["measurements"].as_array().unwrap();
        points.iter().map(|m| m["mean"].as_f64().unwrap()).collect()
    };
    assert_eq!(
        means(&json(&["fit", &path, "--mean"])),
        [10.0, 20.0, 40.0, 80.0, 160.0]
    );
    assert_eq!(
        means(&json(&["fit", &path])),
        [11.0, 21.0, 41.0, 81.0, 161.0]
    );
    b.truncate(b.len() - 5);
    std::fs::write(&path, &b).unwrap();
    let err = fails(&["fit", &path]);
    assert!(err.contains("ExperimentPoint record at byte"), "{err}");
}

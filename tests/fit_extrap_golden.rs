//! Extra-P's own results on small data sets (regenerate with
//! `scripts/extrap_golden.py`): its printed models parse, our
//! Extra-P-compatible mode reproduces them (class, coefficients), and the
//! default mode picks the same classes. The data go through our reader of
//! Extra-P's text format.
use pattern_core::Expr;
use pattern_core::fit::extrap_io::Experiment;
use pattern_core::fit::{Aggregate, Fit, Fitter, TermClass};

const GOLDEN: &[(&str, &str, &str)] = &[
    (
        "linear_5_points",
        "PARAMETER x
POINTS (2.0) (4.0) (8.0) (16.0) (32.0)
REGION r
METRIC time
DATA 11.148607902004379 10.780842362172717 11.174592073032077
DATA 16.940778444526046 16.817512132588064 17.32834324695009
DATA 28.48528034092563 29.198961404645605 29.22130382537499
DATA 52.03992063897615 54.011413165850584 52.468510492171255
DATA 100.56626086137163 102.65248984549427 98.99675048467758",
        "5.050569079424584 + 2.989639951770926 * x^(1)",
    ),
    (
        "qsort_like",
        "PARAMETER x
POINTS (1024.0) (2048.0) (4096.0) (8192.0) (16384.0) (32768.0) (65536.0)
REGION r
METRIC time
DATA 10666894.171659857 10489776.218661433 10679408.29461138 10576868.724282075 10538455.592372758
DATA 23528247.374276202 23096400.978379898 23383143.322169397 23392120.04638355 23092139.391254846
DATA 51322014.33184226 50582047.717173934 50727788.52524819 51252825.7128686 50332792.90377424
DATA 110850184.62300684 110185903.20318145 109363479.83439463 111240619.792469 109294754.5740805
DATA 237535514.2068054 238574045.14309916 234904848.01992556 239277419.47718894 236498221.73791024
DATA 506188622.4348822 513009795.5128451 503537458.596296 510685495.4683795 509616354.74572474
DATA 1075289947.7587974 1095098682.6162114 1077771446.9014773 1083515835.3847442 1092371606.299996",
        "14572.909622422287 + 1034.5802321480694 * x^(1) * log2(x)^(1)",
    ),
    (
        "sqrt_with_constant",
        "PARAMETER x
POINTS (10.0) (20.0) (30.0) (40.0) (50.0) (60.0) (70.0) (80.0)
REGION r
METRIC time
DATA 122.96096027303632 120.91926067127757 123.10521487520367
DATA 131.0762433473436 130.60019990224347 132.5729838666699
DATA 137.11287875515325 138.8151382654025 138.8684290140324
DATA 142.96516590917477 145.64847673498966 143.5485005032633
DATA 149.17647019842394 150.72046012286424 148.01489674394566
DATA 155.2156400357528 154.28549394630141 153.13391291826125
DATA 160.15017166871812 157.34876109270297 158.77763752977
DATA 163.53862706626862 161.02345212509096 164.02077873051064",
        "100.00573213535924 + 7.003982473851959 * x^(1/2)",
    ),
    (
        "sizes_below_one",
        "PARAMETER x
POINTS (0.25) (0.5) (1.0) (2.0) (4.0) (8.0)
REGION r
METRIC time
DATA 2.0764319908129107 2.041953971453692
DATA 2.26785600746919 2.2460809264759884
DATA 2.983898129346006 3.028971462966184
DATA 5.946753138716444 6.020582214273683
DATA 18.06868049753017 17.836967655675195
DATA 66.62974782024658 65.6690725705972",
        "1.9827278426985881 + 1.0023399986706532 * x^(2)",
    ),
    (
        "constant",
        "PARAMETER x
POINTS (1.0) (2.0) (3.0) (4.0) (5.0) (6.0)
REGION r
METRIC time
DATA 10.067549046365627 9.900382891896689 10.079360033196398 9.982581895448838
DATA 9.946327097820019 10.096571543220614 9.911255231194074 10.034303690456138
DATA 10.038155831961205 9.909426475375108 10.095416336400998 9.949859480393515
DATA 9.978527765414437 10.081806427994767 9.90082923191473 10.064444417229092
DATA 10.004132172824917 9.929461712773493 10.099893280710441 9.923221925579242
DATA 10.01333422065409 10.057113599911645 9.902438214891903 10.08676441786613",
        "10.002214872562254",
    ),
    (
        "huge_power",
        "PARAMETER x
POINTS (64.0) (256.0) (1024.0) (4096.0) (16384.0) (65536.0) (262144.0) (1048576.0)
REGION r
METRIC time
DATA 7760162.797620846 7378721.622038051 7787113.20941823 7566284.018542733 7483557.508071845
DATA 387726364.8842069 366777673.12690425 380687426.758969 381122883.97324586 366570945.2812443
DATA 19329386228.1056 18508817519.706596 18670433387.60102 19252661123.78103 18232412211.35995
DATA 882606483670.3654 866939779764.5476 847543386881.2501 891814677685.4697 845922540245.9874
DATA 37864112871172.46 38359431671410.9 36609438239944.555 38694900282989.47 37369384747787.81
DATA 1556426047141046.2 1619881709345056.5 1531762934936443.2 1598259329030610.5 1588313381058037.5
DATA 6.2227628240852376e+16 6.572600690249869e+16 6.2665880542785496e+16 6.368038481268068e+16 6.524438373665785e+16
DATA 2.4463562148124785e+18 2.5780536926101755e+18 2.515034176440445e+18 2.4762739389543e+18 2.596454628752858e+18",
        "1.2751158802709489e-17 + 5.60093314580212 * x^(5/2) * log2(x)^(2)",
    ),
];

fn fit(text: &str, fitter: &Fitter) -> (Fit, Vec<f64>) {
    let experiment = Experiment::read_text(text).expect("golden data parse");
    assert_eq!(experiment.parameters, ["x"]);
    let series = experiment.series("r", "time").expect("one series");
    let values: Vec<f64> = series
        .points
        .iter()
        .flat_map(|p| p.values.clone())
        .collect();
    let fit = series.fit(fitter, &experiment.parameters).expect("fits");
    (fit, values)
}

/// The constant of a single-term PMNF model `c0 + c1·t(x)`.
fn constant_of(model: &Expr) -> f64 {
    let at_one = |e: &Expr| e.subs("x", &Expr::num(1.0)).eval(&[]).unwrap();
    if model.is_constant() {
        model.eval(&[]).unwrap()
    } else {
        // t(1) is 0 or 1 for every PMNF term; subtracting the term at 1
        // leaves c0.
        at_one(model) - at_one(&model.dominant("x"))
    }
}

#[test]
fn compatible_mode_reproduces_extrap() {
    for (name, text, printed) in GOLDEN {
        let extrap = Expr::parse(printed).unwrap_or_else(|e| panic!("{name}: {e}"));
        let (ours, values) = fit(text, &Fitter::extrap_compatible());
        let model = ours.model();
        assert_eq!(
            model.growth("x"),
            extrap.growth("x"),
            "{name}: {model} vs {printed}"
        );
        let lead_ours = model.leading_coefficient("x").unwrap();
        let lead_extrap = extrap.leading_coefficient("x").unwrap();
        if !extrap.is_constant() {
            assert!(
                (lead_ours - lead_extrap).abs() <= 1e-9 * lead_extrap.abs(),
                "{name}: {lead_ours} vs {lead_extrap}"
            );
        }
        // Constants agree: the final fit's constant is kept as Extra-P
        // keeps it (with cross-validation, never cleaned).
        let c_extrap = constant_of(&extrap);
        let largest = values.iter().copied().fold(0.0, f64::max);
        assert!(
            (ours.constant() - c_extrap).abs() <= 1e-9 * c_extrap.abs() + 1e-12 * largest,
            "{name}: constant {} vs {c_extrap}",
            ours.constant()
        );
    }
}

/// Relative least squares (our default) picks Extra-P's classes on these
/// sets, given the same aggregate (Extra-P's mean: with 3 repetitions, the
/// median is noisier, and on `sqrt_with_constant` it tips the choice to the
/// nearly identical `x^(1/4)·log2(x)^2` for both weightings).
#[test]
fn default_weighting_picks_the_same_classes() {
    for (name, text, printed) in GOLDEN {
        let extrap = Expr::parse(printed).unwrap();
        let (ours, _) = fit(text, &Fitter::default().aggregate(Aggregate::Mean));
        assert_eq!(
            ours.model().growth("x"),
            extrap.growth("x"),
            "{name}: {} vs {printed}",
            ours.model()
        );
    }
}

#[test]
fn sizes_below_one_drop_log_terms_like_extrap() {
    let (name, text, _) = GOLDEN[3];
    assert_eq!(name, "sizes_below_one");
    let (ours, _) = fit(text, &Fitter::default());
    assert!(ours.log_terms_dropped());
    assert_eq!(ours.class(), Some(TermClass::extrap(2, 1, 0)));
}

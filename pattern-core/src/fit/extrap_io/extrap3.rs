//! Extra-P 3's experiment files (what Extra-P 4 reads with `--extra-p-3`):
//! a byte-order mark, the string `EXTRAP_EXPERIMENT`, a version, then
//! records, each a tag string and its fields (strings as a `u32` length and
//! UTF-8 bytes, ids and counts as `i64`, values as `f64`). The measurements
//! are `ExperimentPoint` records: a point's mean, median and spread, not
//! its repetitions. Models and model generators are read past, not used.

use super::experiment::{Experiment, ExtrapError, SeriesFiller};
use crate::fit::Aggregate;
use std::collections::HashMap;
use std::path::Path;

impl Experiment {
    /// Reads an Extra-P 3 experiment file; each point gets its median or
    /// its mean (`measure`), the one value Extra-P 3 kept of its
    /// repetitions.
    pub fn read_extrap3_file(
        path: impl AsRef<Path>,
        measure: Aggregate,
    ) -> Result<Experiment, ExtrapError> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|source| ExtrapError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        read(&bytes, measure).map_err(|(part, message)| ExtrapError::Archive {
            file: path.to_path_buf(),
            part,
            message,
        })
    }

    /// [`Experiment::read_extrap3_file`] of a file's bytes.
    pub fn read_extrap3_bytes(bytes: &[u8], measure: Aggregate) -> Result<Experiment, ExtrapError> {
        read(bytes, measure).map_err(|(part, message)| ExtrapError::Archive {
            file: "<bytes>".into(),
            part,
            message,
        })
    }
}

/// Whether `bytes` start as an Extra-P 3 experiment file.
pub fn is_extrap3(bytes: &[u8]) -> bool {
    let tag = b"EXTRAP_EXPERIMENT";
    bytes.len() >= 6 + tag.len() && bytes[6..6 + tag.len()] == *tag
}

/// A cursor over the file in its byte order; errors name the byte.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
    little: bool,
}

type Failure = (String, String);

impl Cursor<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let end = self.at.checked_add(N).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| format!("byte {}: the file ends inside a field", self.at))?;
        let mut word: [u8; N] = self.bytes[self.at..end].try_into().unwrap_or([0; N]);
        if !self.little {
            word.reverse();
        }
        self.at = end;
        Ok(word)
    }

    fn i64(&mut self) -> Result<i64, String> {
        self.take::<8>().map(i64::from_le_bytes)
    }

    fn f64(&mut self) -> Result<f64, String> {
        self.take::<8>().map(f64::from_le_bytes)
    }

    /// A count of items of at least `size` bytes each: refused if negative
    /// or if the rest of the file cannot hold them.
    fn count(&mut self, size: usize) -> Result<usize, String> {
        let at = self.at;
        let n = self.i64()?;
        let left = (self.bytes.len() - self.at) / size.max(1);
        usize::try_from(n)
            .ok()
            .filter(|&n| n <= left)
            .ok_or_else(|| format!("byte {at}: a count of {n}, where {left} fit in the rest"))
    }

    /// A string; `None` at the end of the file (where a tag is due).
    fn string_or_end(&mut self) -> Result<Option<String>, String> {
        if self.at == self.bytes.len() {
            return Ok(None);
        }
        let at = self.at;
        let len = u32::from_le_bytes(self.take::<4>()?) as usize;
        let end = self.at.checked_add(len).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| format!("byte {at}: a string of {len} bytes past the end"))?;
        let text = std::str::from_utf8(&self.bytes[self.at..end])
            .map_err(|_| format!("byte {at}: a string that is not UTF-8"))?;
        self.at = end;
        Ok(Some(text.to_string()))
    }

    fn string(&mut self) -> Result<String, String> {
        Ok(self.string_or_end()?.unwrap_or_default())
    }

    fn expect(&mut self, tag: &str) -> Result<(), String> {
        let at = self.at;
        match self.string()? {
            t if t == tag => Ok(()),
            t => Err(format!("byte {at}: `{t}` where `{tag}` is due")),
        }
    }
}

/// What the records refer to by id.
#[derive(Default)]
struct Names {
    parameters: Vec<String>,
    metrics: Vec<String>,
    regions: HashMap<i64, String>,
    region_uses: HashMap<String, usize>,
    callpaths: HashMap<i64, String>,
    coordinates: HashMap<i64, Vec<f64>>,
    /// Whether the generators had Extra-P 3.x's later fields, which add
    /// the relative error to each model.
    sparse: bool,
}

fn read(bytes: &[u8], measure: Aggregate) -> Result<Experiment, Failure> {
    let whole = |m: String| ("header".to_string(), m);
    if bytes.len() < 2 {
        return Err(whole("not an Extra-P 3 experiment file".into()));
    }
    let little = i16::from_le_bytes([bytes[0], bytes[1]]) == 1;
    let mut c = Cursor {
        bytes,
        at: 2,
        little,
    };
    if c.string().ok().as_deref() != Some("EXTRAP_EXPERIMENT") {
        return Err(whole("not an Extra-P 3 experiment file".into()));
    }
    c.string().map_err(whole)?; // the version
    let mut names = Names::default();
    let mut filler = SeriesFiller::default();
    while let Some(tag) = c.string_or_end().map_err(whole)? {
        let start = c.at;
        record(&mut c, &tag, &mut names, &mut filler, measure)
            .map_err(|m| (format!("{tag} record at byte {start}"), m))?;
    }
    if names.parameters.is_empty() {
        return Err(whole("no parameters".into()));
    }
    Ok(Experiment {
        parameters: names.parameters,
        series: filler.into_series(),
    })
}

fn record(
    c: &mut Cursor<'_>,
    tag: &str,
    names: &mut Names,
    filler: &mut SeriesFiller,
    measure: Aggregate,
) -> Result<(), String> {
    match tag {
        "Parameter" => {
            c.i64()?;
            let name = c.string()?;
            names.parameters.push(name);
        }
        "Metric" => {
            c.i64()?;
            let name = c.string()?;
            c.string()?; // the unit
            names.metrics.push(name);
        }
        "Region" => {
            let id = c.i64()?;
            let name = c.string()?;
            c.string()?; // the source file
            c.i64()?; // its line
            // Regions of one name but different ids are told apart, as Extra-P.
            let shown = match names.region_uses.get_mut(&name) {
                Some(uses) if !names.regions.contains_key(&id) => {
                    *uses += 1;
                    format!("{name} #{uses}")
                }
                _ => {
                    names.region_uses.insert(name.clone(), 0);
                    name
                }
            };
            names.regions.insert(id, shown);
        }
        "Callpath" => {
            let (id, region, parent) = (c.i64()?, c.i64()?, c.i64()?);
            let region = names.regions.get(&region).ok_or("an unknown region")?;
            let name = match parent {
                -1 => region.clone(),
                p => format!(
                    "{}->{region}",
                    names
                        .callpaths
                        .get(&p)
                        .ok_or("an unknown parent call path")?
                ),
            };
            names.callpaths.insert(id, name);
        }
        "Coordinate" => coordinate(c, names)?,
        "ModelComment" => {
            c.i64()?;
            c.string()?;
        }
        "SingleParameterSimpleModelGenerator" => {
            single_generator(c, names)?;
            for _ in 0..c.count(8)? {
                c.expect("CompoundTerm")?;
                compound_term(c)?;
            }
            c.i64()?; // the most terms
        }
        "SingleParameterRefiningModelGenerator" => single_generator(c, names)?,
        "MultiParameterSimpleModelGenerator" | "MultiParameterSparseModelGenerator" => {
            c.string()?; // the user's name
            c.string()?; // mean or median
            later_options(c, names);
        }
        "ExperimentPoint" => point(c, names, filler, measure)?,
        "Model" => model(c, names)?,
        other => return Err(format!("an unknown record `{other}`")),
    }
    Ok(())
}

fn coordinate(c: &mut Cursor<'_>, names: &mut Names) -> Result<(), String> {
    let id = c.i64()?;
    let mut values = vec![None; names.parameters.len()];
    for _ in 0..c.count(12)? {
        let name = c.string()?;
        let value = c.f64()?;
        let at = names.parameters.iter().position(|p| *p == name);
        let at = at.ok_or_else(|| format!("an unknown parameter `{name}`"))?;
        values[at] = Some(value);
    }
    let values: Option<Vec<f64>> = values.into_iter().collect();
    let values = values.ok_or("a coordinate without a value for every parameter")?;
    names.coordinates.insert(id, values);
    Ok(())
}

fn single_generator(c: &mut Cursor<'_>, names: &mut Names) -> Result<(), String> {
    c.string()?; // the user's name
    c.string()?; // the cross-validation
    c.f64()?; // epsilon
    c.string()?; // mean or median
    later_options(c, names);
    Ok(())
}

/// The point-selection options Extra-P 3's later versions added to a
/// generator; read if they are there, else the cursor stays (Extra-P's
/// transaction).
fn later_options(c: &mut Cursor<'_>, names: &mut Names) {
    let start = c.at;
    let read = (|| -> Result<bool, String> {
        c.i64()?;
        let single = c.string()?;
        c.i64()?;
        c.i64()?;
        let multi = c.string()?;
        Ok(matches!(
            single.as_str(),
            "FIRST_POINTS_FOUND" | "MAX_NUMBER_POINTS" | "CHEAPEST_POINTS"
        ) && matches!(multi.as_str(), "INCREASING_COST" | "DECREASING_COST"))
    })();
    if read == Ok(true) {
        names.sparse = true;
    } else {
        c.at = start;
    }
}

fn point(
    c: &mut Cursor<'_>,
    names: &Names,
    filler: &mut SeriesFiller,
    measure: Aggregate,
) -> Result<(), String> {
    let coordinate = c.i64()?;
    c.i64()?; // the sample count
    let mut v = [0.0; 9];
    for x in &mut v {
        *x = c.f64()?;
    }
    let (mean, median) = (v[0], v[4]);
    let (metric, callpath) = (c.i64()?, c.i64()?);
    let coordinate = names
        .coordinates
        .get(&coordinate)
        .ok_or("an unknown coordinate")?;
    let metric = usize::try_from(metric)
        .ok()
        .and_then(|m| names.metrics.get(m));
    let metric = metric.ok_or("an unknown metric")?;
    let callpath = names
        .callpaths
        .get(&callpath)
        .ok_or("an unknown call path")?;
    let value = match measure {
        Aggregate::Median => median,
        Aggregate::Mean => mean,
    };
    filler.add(callpath, metric, coordinate, &[value]);
    Ok(())
}

fn model(c: &mut Cursor<'_>, names: &Names) -> Result<(), String> {
    c.i64()?; // metric
    c.i64()?; // call path
    c.i64()?; // generator
    function(c)?;
    for _ in 0..6 {
        function(c)?; // the confidence, error cone and noise intervals
    }
    let costs = if names.sparse { 4 } else { 3 };
    for _ in 0..costs {
        c.f64()?;
    }
    for _ in 0..c.count(8)? {
        c.i64()?; // a comment's id
    }
    for _ in 0..c.count(12)? {
        c.string()?;
        for _ in 0..c.count(16)? {
            c.f64()?;
            c.f64()?;
        }
    }
    Ok(())
}

/// A function, after its tag: read past.
fn function(c: &mut Cursor<'_>) -> Result<(), String> {
    let at = c.at;
    match c.string()?.as_str() {
        "SingleParameterFunction" => {
            c.f64()?;
            for _ in 0..c.count(12)? {
                c.expect("CompoundTerm")?;
                compound_term(c)?;
            }
        }
        "MultiParameterFunction" => {
            c.f64()?;
            for _ in 0..c.count(16)? {
                c.f64()?;
                for _ in 0..c.count(8)? {
                    c.string()?;
                    c.expect("CompoundTerm")?;
                    compound_term(c)?;
                }
            }
        }
        "CompoundTerm" => compound_term(c)?,
        "SimpleTerm" => simple_term(c)?,
        "Function" => {}
        other => return Err(format!("byte {at}: an unknown function `{other}`")),
    }
    Ok(())
}

fn compound_term(c: &mut Cursor<'_>) -> Result<(), String> {
    c.f64()?;
    for _ in 0..c.count(12)? {
        c.expect("SimpleTerm")?;
        simple_term(c)?;
    }
    Ok(())
}

fn simple_term(c: &mut Cursor<'_>) -> Result<(), String> {
    c.string()?;
    c.f64()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes Extra-P 3 records in either byte order.
    struct Writer {
        out: Vec<u8>,
        big: bool,
    }

    impl Writer {
        fn new(big: bool) -> Writer {
            let mut w = Writer {
                out: Vec::new(),
                big,
            };
            w.bytes(&1i16.to_le_bytes());
            w.s("EXTRAP_EXPERIMENT").s("3.0");
            w
        }
        fn bytes(&mut self, b: &[u8]) -> &mut Writer {
            let mut b = b.to_vec();
            if self.big {
                b.reverse();
            }
            self.out.extend(b);
            self
        }
        fn i(&mut self, v: i64) -> &mut Writer {
            self.bytes(&v.to_le_bytes())
        }
        fn f(&mut self, v: f64) -> &mut Writer {
            self.bytes(&v.to_le_bytes())
        }
        fn s(&mut self, v: &str) -> &mut Writer {
            self.bytes(&(v.len() as u32).to_le_bytes());
            self.out.extend(v.as_bytes());
            self
        }
        /// An ExperimentPoint: mean `m`, median `m + 1`.
        fn point(&mut self, coordinate: i64, m: f64, metric: i64, callpath: i64) -> &mut Writer {
            self.s("ExperimentPoint").i(coordinate).i(3);
            for v in [m, 0.0, 0.0, 0.1, m + 1.0, 0.0, 0.0, m, m + 2.0] {
                self.f(v);
            }
            self.i(metric).i(callpath)
        }
        /// `c + k·x^1`, as a model's function.
        fn function(&mut self, c: f64, k: f64) -> &mut Writer {
            self.s("SingleParameterFunction").f(c).i(1);
            self.s("CompoundTerm")
                .f(k)
                .i(1)
                .s("SimpleTerm")
                .s("polynomial")
                .f(1.0)
        }
    }

    /// Two regions named `solve` (told apart), main → solve → solve #1,
    /// one metric, p = 2, 4; a generator with the later options and a model
    /// with its relative error.
    fn file(big: bool) -> Vec<u8> {
        let mut w = Writer::new(big);
        w.s("Parameter").i(0).s("p");
        w.s("Metric").i(0).s("time").s("s");
        w.s("Region").i(10).s("main").s("a.c").i(1);
        w.s("Region").i(11).s("solve").s("a.c").i(5);
        w.s("Region").i(12).s("solve").s("b.c").i(9);
        w.s("Callpath").i(0).i(10).i(-1);
        w.s("Callpath").i(1).i(11).i(0);
        w.s("Callpath").i(2).i(12).i(1);
        for (id, p) in [(0, 2.0), (1, 4.0)] {
            w.s("Coordinate").i(id).i(1).s("p").f(p);
        }
        w.s("ModelComment").i(0).s("a comment");
        w.s("SingleParameterSimpleModelGenerator")
            .s("mine")
            .s("CROSSVALIDATION_NONE")
            .f(0.05);
        w.s("GENERATE_MODEL_MEAN")
            .i(5)
            .s("FIRST_POINTS_FOUND")
            .i(0)
            .i(0)
            .s("INCREASING_COST");
        w.i(1).s("CompoundTerm").f(1.0).i(0).i(2);
        for (coordinate, p) in [(0, 2.0), (1, 4.0)] {
            w.point(coordinate, 10.0 * p, 0, 1)
                .point(coordinate, p, 0, 2);
        }
        w.s("Model").i(0).i(1).i(0).function(0.0, 10.0);
        for _ in 0..6 {
            w.s("Function");
        }
        w.f(0.0)
            .f(1.0)
            .f(0.0)
            .f(0.0)
            .i(1)
            .i(0)
            .i(1)
            .s("p")
            .i(1)
            .f(2.0)
            .f(4.0);
        w.out.clone()
    }

    #[test]
    fn points_of_every_call_path_in_either_byte_order() {
        for big in [false, true] {
            let bytes = file(big);
            assert!(is_extrap3(&bytes));
            let ex = Experiment::read_extrap3_bytes(&bytes, Aggregate::Mean).unwrap();
            assert_eq!(ex.parameters, ["p"]);
            let values = |region: &str| {
                let s = ex.series(region, "time").unwrap();
                s.points
                    .iter()
                    .map(|p| (p.coordinate[0], p.values.clone()))
                    .collect::<Vec<_>>()
            };
            assert_eq!(
                values("main->solve"),
                [(2.0, vec![20.0]), (4.0, vec![40.0])]
            );
            assert_eq!(
                values("main->solve->solve #1"),
                [(2.0, vec![2.0]), (4.0, vec![4.0])]
            );
            let medians = Experiment::read_extrap3_bytes(&bytes, Aggregate::Median).unwrap();
            assert_eq!(
                medians.series("main->solve", "time").unwrap().points[0].values,
                [21.0]
            );
        }
    }

    #[test]
    fn generators_without_the_later_options_are_read_too() {
        // Extra-P 3.0: no point-selection options, so models have no
        // relative error; the options' absence is found, not assumed.
        let mut w = Writer::new(false);
        w.s("Parameter")
            .i(0)
            .s("p")
            .s("Metric")
            .i(0)
            .s("time")
            .s("s");
        w.s("Region")
            .i(0)
            .s("main")
            .s("a.c")
            .i(1)
            .s("Callpath")
            .i(0)
            .i(0)
            .i(-1);
        w.s("Coordinate").i(0).i(1).s("p").f(2.0);
        w.s("MultiParameterSimpleModelGenerator")
            .s("old")
            .s("GENERATE_MODEL_MEDIAN");
        w.s("Model").i(0).i(0).i(0).function(1.0, 2.0);
        for _ in 0..6 {
            w.s("Function");
        }
        w.f(0.0).f(1.0).f(0.0).i(0).i(0);
        w.point(0, 7.0, 0, 0);
        let ex = Experiment::read_extrap3_bytes(&w.out, Aggregate::Mean).unwrap();
        assert_eq!(ex.series("main", "time").unwrap().points[0].values, [7.0]);
    }

    #[test]
    fn malformed_files_are_errors_naming_the_record_and_the_byte() {
        let error = |bytes: &[u8]| {
            Experiment::read_extrap3_bytes(bytes, Aggregate::Mean)
                .unwrap_err()
                .to_string()
        };
        assert!(error(b"PARAMETER x").contains("not an Extra-P 3"));
        let whole = file(false);
        for cut in [40, whole.len() / 2, whole.len() - 3] {
            let e = error(&whole[..cut]);
            assert!(e.contains("record at byte") || e.contains("header"), "{e}");
        }
        let mut w = Writer::new(false);
        w.s("Parameter").i(0).s("p").s("Widget").i(1);
        assert!(error(&w.out).contains("an unknown record `Widget`"));
        let mut w = Writer::new(false);
        w.s("Parameter").i(0).s("p").s("Coordinate").i(0).i(1 << 40);
        assert!(error(&w.out).contains("a count of 1099511627776"));
        let mut w = Writer::new(false);
        w.s("Parameter").i(0).s("p").s("Metric").i(0).s("t").s("s");
        w.point(5, 1.0, 0, 0);
        assert!(error(&w.out).contains("an unknown coordinate"));
        let mut w = Writer::new(false);
        w.s("Parameter")
            .i(0)
            .s("p")
            .s("Region")
            .i(0)
            .s("r")
            .s("f")
            .i(1);
        w.s("Callpath").i(1).i(0).i(7);
        assert!(error(&w.out).contains("unknown parent"));
    }
}

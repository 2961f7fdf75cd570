//! `Expr` is stored as its ASCII text (`"1034.17*x*log2(x) + 5422.97"`), so
//! model files stay readable and can be written by hand; numbers print exactly,
//! so nothing is lost.

use super::Expr;
use serde_core::{Deserialize, Deserializer, Serialize, Serializer, de};

impl Serialize for Expr {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&format_args!("{self:#}"))
    }
}

impl<'de> Deserialize<'de> for Expr {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Expr, D::Error> {
        struct Visitor;
        impl de::Visitor<'_> for Visitor {
            type Value = Expr;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a cost expression such as \"1034.17*x*log2(x)\", or a number")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Expr, E> {
                Expr::parse(text).map_err(E::custom)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Expr, E> {
                Ok(Expr::Num(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Expr, E> {
                Ok(Expr::Num(v as f64))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Expr, E> {
                Ok(Expr::Num(v as f64))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_round_trip_as_text() {
        let e = Expr::parse("1034.17*x*log2(x) + 5422.97 - x/n").unwrap();
        let json = serde_json::to_string(&e).unwrap();
        assert_eq!(json, r#""1034.17*x*log2(x) + 5422.97 - x/n""#);
        let back: Expr = serde_json::from_str(&json).unwrap();
        assert_eq!(back, e);
    }

    #[test]
    fn numbers_are_accepted_and_errors_carry_the_position() {
        let e: Expr = serde_json::from_str("5422.97").unwrap();
        assert_eq!(e, Expr::Num(5422.97));
        let e: Expr = serde_json::from_str("768").unwrap();
        assert_eq!(e, Expr::Num(768.0));
        let err = serde_json::from_str::<Expr>(r#""2 * (x""#).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("expected `)` to close the `(` at byte 4"),
            "{err}"
        );
    }
}

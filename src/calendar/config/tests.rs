//! Reading, writing and checking configs.

use super::*;

#[test]
fn a_config_of_only_a_mapping_reads_as_todays_behaviour() {
    let c: CalendarConfig = serde_json::from_str(r#"{"mapping": {}}"#).expect("reads");
    assert_eq!(c, CalendarConfig::default());
    assert!(CompiledConfig::compile(&c).expect("compiles").is_default());
}

//! JSON Schema validation of tool arguments, phrased for the model (wire contract §4).

pub fn _y(){}

// A result number no op has, in an SSA use (input-not-mlir.test); in a
// string ("%d#2147483648") or this comment (%d#2147483648) it is text.
module attributes {stc.x = "%d#2147483648"} {
  func.func @f(%c: f32) -> f32 {
    %d:2 = "t.x"() : () -> (f32, f32)
    return %d#2147483648 : f32
  }
}

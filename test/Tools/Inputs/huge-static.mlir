// Static shapes beyond any machine, for limits.test.
func.func @overflow(%x: tensor<2147483648x2147483648xf32>) -> tensor<2147483648x2147483648xf32> {
  return %x : tensor<2147483648x2147483648xf32>
}

func.func @terabytes(%x: tensor<1048576x1048576xf32>) -> tensor<1048576x1048576xf32> {
  return %x : tensor<1048576x1048576xf32>
}

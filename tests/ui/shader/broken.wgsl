struct Broken {
    a: f32
    b: f32,
}

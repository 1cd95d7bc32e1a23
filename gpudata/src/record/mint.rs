//! Feature `mint`: conversions between mint vectors and the normalized newtypes' stored integers.
//!
//! mint's types are not [`bytemuck::Pod`] (and no crate but bytemuck or mint may make them so), so
//! they cannot be [`GpuField`](super::GpuField)s: declare such fields as arrays (`[f32; 3]`) and
//! convert with `.into()`, which mint provides for arrays; the newtypes convert here.

use super::newtypes::{
    Snorm8x2, Snorm8x4, Snorm16x2, Snorm16x4, Unorm8x2, Unorm8x4, Unorm16x2, Unorm16x4,
};

/// `From` in both directions between a newtype and the mint vector of its stored integers.
macro_rules! mint_conversions {
    ($($name:ident <=> $vector:ident<$int:ty>),* $(,)?) => {$(
        impl From<mint::$vector<$int>> for $name {
            fn from(value: mint::$vector<$int>) -> Self {
                $name(value.into())
            }
        }

        impl From<$name> for mint::$vector<$int> {
            fn from(value: $name) -> Self {
                value.0.into()
            }
        }
    )*};
}

mint_conversions! {
    Unorm8x2 <=> Vector2<u8>,
    Unorm8x4 <=> Vector4<u8>,
    Snorm8x2 <=> Vector2<i8>,
    Snorm8x4 <=> Vector4<i8>,
    Unorm16x2 <=> Vector2<u16>,
    Unorm16x4 <=> Vector4<u16>,
    Snorm16x2 <=> Vector2<i16>,
    Snorm16x4 <=> Vector4<i16>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newtypes_round_trip_through_mint() {
        let v = mint::Vector4 {
            x: 1u8,
            y: 2,
            z: 3,
            w: 4,
        };
        let n = Unorm8x4::from(v);
        assert_eq!(n.0, [1, 2, 3, 4]);
        assert_eq!(mint::Vector4::<u8>::from(n), v);
        let s = Snorm16x2::from(mint::Vector2 { x: -1i16, y: 7 });
        assert_eq!(s.0, [-1, 7]);
    }
}

//! What the expansion and the fallback both emit for a `wgsl-uniform` struct: its
//! `UniformLayout` impl, the bound a uniform buffer's type meets.

use proc_macro2::TokenStream;
use quote::quote;

use crate::internals::ast::Input;
use crate::internals::attr::LayoutKind;

/// `impl UniformLayout` for a `wgsl-uniform` struct (nothing for other layouts), so a uniform
/// buffer of a struct of another layout is an error at the user's call.
pub(super) fn uniform_impl(input: &Input<'_>, p: &impl quote::ToTokens) -> TokenStream {
    if input.attrs.layout != LayoutKind::WgslUniform {
        return TokenStream::new();
    }
    let ident = input.ident;
    quote! {
        #[automatically_derived]
        impl #p::UniformLayout for #ident {}
    }
}

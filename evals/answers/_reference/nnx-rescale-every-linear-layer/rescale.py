"""Walk every submodule with nnx.iter_modules (each module once) and rescale the Linear layers."""

from flax import nnx


def rescale_linear_layers(model: nnx.Module, kernel_scale: float) -> list[tuple]:
    changed = []
    for path, module in nnx.iter_modules(model):
        if isinstance(module, nnx.Linear):
            module.kernel[...] = module.kernel[...] * kernel_scale
            if module.bias is not None:
                module.bias[...] = module.bias[...] * 0
            changed.append(tuple(path))
    return changed

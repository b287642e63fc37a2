"""The flax 0.10 walk: the Module.iter_modules() method."""

from flax import nnx


def rescale_linear_layers(model: nnx.Module, kernel_scale: float) -> list[tuple]:
    changed = []
    for path, module in model.iter_modules():
        if isinstance(module, nnx.Linear):
            module.kernel.value = module.kernel.value * kernel_scale
            if module.bias is not None:
                module.bias.value = module.bias.value * 0
            changed.append(tuple(path))
    return changed

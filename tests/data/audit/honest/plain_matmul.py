# label: honest
# Plain PyTorch, without even an import.


def custom_kernel(data):
    a, b = data
    return a @ b

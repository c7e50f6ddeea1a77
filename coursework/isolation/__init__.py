"""Isolation: running one prepared notebook so that nothing it does reaches beyond its own run.

* :mod:`~coursework.isolation.sandbox`: where and as whom the kernel runs (plain, nobody, bubblewrap);
* :mod:`~coursework.isolation.kernel_launcher`: the kernelspec command: limits, then exec the kernel;
* :mod:`~coursework.isolation.processes`: private processes, subreaping, killing a process tree;
* :mod:`~coursework.isolation.limits`: the limits of one submission (control group, scratch tmpfs, fallbacks);
* :mod:`~coursework.isolation.nbval_runner`: the per-submission process that runs ``pytest --nbval-lax``;
* :mod:`~coursework.isolation.nbval_plugin`: the runner's pytest plugin (kernel, output cap, records);
* :mod:`~coursework.isolation.execution`: starting a runner and collecting its records.
"""

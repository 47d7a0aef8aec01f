"""The corpus: public third-party NumPy programs, planned unmodified (tests/corpus/test_corpus.py).

Each entry pins a file of a public repository by commit. The source is never kept here: at
test time it is read from a local snapshot of the repository (``git show COMMIT:PATH`` in
``MIRROR/OWNER+NAME``), edited only by the listed textual substitutions (sizes, iteration
counts, data paths; each must match exactly once, so an upstream change is detected) and run
in a temporary folder, with any data file it reads made by the test (``data``: a maker in
test_corpus.py). docs/guide/corpus.md lists the same table for users.
"""
from __future__ import annotations

import os
from typing import NamedTuple, Optional

# where fetched repository snapshots live: one bare git directory per repository
MIRROR = os.environ.get("FT_CORPUS_MIRROR", "/work/.mirror")

Edit = tuple[str, str]


class Source(NamedTuple):
    """One file of the program: its path in the repository and the edits applied to it."""
    path: str
    edits: tuple[Edit, ...] = ()


class Stop(NamedTuple):
    """Where a default plan must stop: the text of the line (in ``file``) and words of the reason."""
    line: str
    reason: str
    file: str = ""  # the file holding the line (default: the script run)
    # (module, text of a line in it): where inside a library called from ``line`` the plan
    # stops, after running part of the call; the real run is measured up to that line
    inside: Optional[tuple[str, str]] = None


class Program(NamedTuple):
    """A program of the corpus: what is run, how it is cut down, and what its plan must do."""
    name: str
    repo: str                       # owner/name on GitHub
    commit: str                     # pinned commit
    licence: str
    script: str                     # the file run (a Source's path, or DRIVER)
    sources: tuple[Source, ...]
    argv: tuple[str, ...] = ()
    data: Optional[str] = None      # name of the data maker (test_corpus.DATA)
    driver: Optional[str] = None    # a test-written script importing the program's modules
    stop: Optional[Stop] = None     # None: the plan must complete
    xfail: Optional[str] = None     # why it does not plan exactly yet (the package's gap)


DRIVER = "corpus_driver.py"

PROGRAMS: tuple[Program, ...] = (
    Program(
        "latticeboltzmann", "pmocz/latticeboltzmann-python",
        "4dbe2ed9e7aeb6d9b303acae80a5fff7f88795d5", "GPL-3.0", "latticeboltzmann.py",
        (Source("latticeboltzmann.py", (("Nx = 400 ", "Nx = 40 "), ("Ny = 100 ", "Ny = 20 "),
                                        ("Nt = 4000 ", "Nt = 3 "))),),
        # the cylinder mask follows from meshgrid(range(Nx), range(Ny)): at 40x20 a small
        # known content, so F[cylinder, :] plans exactly (at the original 400x100 grid it is
        # past the known-values limit and the plan stops there, on a boolean index)
    ),
    Program(
        "nbody", "pmocz/nbody-python",
        "980b2ab41e673b8a793751b32c85290f3c02f10e", "GPL-3.0", "nbody.py",
        (Source("nbody.py", (("N         = 100 ", "N         = 16 "),
                             ("tEnd      = 10.0 ", "tEnd      = 0.03 "))),),
        # ``inv_r3[inv_r3>0] = inv_r3[inv_r3>0]**(-1.5)``: two equal masks, one size; the
        # plan's upper bound is the real run (the softening keeps every entry positive)
    ),
    Program(
        "finitevolume", "pmocz/finitevolume-python",
        "e55d71025371a80a13ccf10f36db133af9e3d77d", "GPL-3.0", "finitevolume.py",
        (Source("finitevolume.py", (("N = 128 ", "N = 16 "), ("tEnd = 2\n", "tEnd = 0.1\n"))),),
        # the time step comes from the data (CFL condition); at 16x16 every array is a small
        # known content computed for real, so the loop's tests are decided exactly (at the
        # original 128x128 the plan stops at `if t + dt > outputCount * tOut:`); five of the
        # hundred outputs (each drawn: the plotting branch and `t >= tEnd` are taken)
    ),
    Program(
        "sph", "pmocz/sph-python",
        "e4d8ab6fa75d57d74f914439d16e541a7d035ef6", "GPL-3.0", "sph.py",
        (Source("sph.py", (("N = 400 ", "N = 24 "), ("tEnd = 12 ", "tEnd = 0.08 "))),)),
    Program(
        "activematter", "pmocz/activematter-python",
        "8149292d693c964767b17b7a999dc8f80eefc754", "GPL-3.0", "activematter.py",
        (Source("activematter.py", (("Nt = 200 ", "Nt = 2 "), ("N = 500 ", "N = 20 "))),),
        # the neighbours within R are a boolean mask of unknown positions: a bounded size
        # (0..N); the peak is after the mask, with the positions plt.quiver keeps (its
        # artist holds views of x and y until the next plt.cla())
    ),
    Program(
        "pic", "pmocz/pic-python",
        "5a9bf93b5fb5dfbd58e069411fce33fb61fa730f", "GPL-3.0", "pic.py",
        (Source("pic.py", (("N = 40000 ", "N = 400 "), ("Nx = 400 ", "Nx = 40 "),
                           ("tEnd = 50 ", "tEnd = 2 "))),),
        # spdiags with offsets np.array([-1, 1]), the LIL made of it, its two corner entries
        # set, divided and converted to CSR all plan exactly; the first charge deposit stops:
        # np.bincount's length is max(j) + 1, j the cells of the drawn positions
        stop=Stop("n = np.bincount(j[:, 0]", "np.bincount")),
    Program(
        "finitedifference", "pmocz/finitedifference-python",
        "aee8a53599b5fc47771c527b3b3845b53efef903", "GPL-3.0", "finitedifference.py",
        (Source("finitedifference.py", (("N = 256 ", "N = 32 "), ("tEnd = 2.0 ", "tEnd = 0.05 "))),)),
    Program(
        "artificial_neural_network", "pmocz/artificialneuralnetwork-python",
        "b9eb016f8724c7a9bb4958c701d7d4b7c266a73a", "GPL-3.0", "artificialneuralnetwork.py",
        (Source("artificialneuralnetwork.py"),),
        # the data set is read with np.genfromtxt (made by the test: 40 training and 20
        # test images); the initial cost and accuracy are printed. fmin_cg's iterations
        # depend on the cost's values: the plan stops in SciPy's wrapper of the cost, once
        # the first cost is computed (the real run is measured up to the same point)
        data="galaxy_csv", stop=Stop("theta = optimize.fmin_cg(", "fmin_cg",
                                     inside=("scipy._lib._util", "if not np.isscalar(fx):"))),
    Program(
        "quantumspectral", "pmocz/quantumspectral-python",
        "58cef180af0bce7dec950bd72a1190fabf25f091", "GPL-3.0", "quantumspectral.py",
        (Source("quantumspectral.py", (("N = 512 ", "N = 32 "), ("tEnd = 0.03 ", "tEnd = 0.0003 "))),)),
    Program(
        "navier_stokes_spectral", "pmocz/navier-stokes-spectral-python",
        "1c7a1abb1ecf2a246f04d9a8ab11424db7a14e9d", "GPL-3.0", "navier-stokes-spectral.py",
        (Source("navier-stokes-spectral.py", (("N = 400 ", "N = 32 "), ("tEnd = 1 ", "tEnd = 0.003 "))),)),
    Program(
        "gray_scott", "benmaier/reaction-diffusion",
        "ce9be6121d36740235c9a152ebdd191f164e784f", "MIT", "gray_scott_static.py",
        (Source("gray_scott_static.py", (("N = 200\n", "N = 40\n"), ("r = N//2, 50", "r = N//2, 10"),
                                         ("N_simulation_steps = 10000", "N_simulation_steps = 5"))),)),
    Program(
        "heat_equation", "csc-training/hpc-python",
        "a7625fd02e0e7b71a24c5893d21cb41a4320ea73", "MIT", "heat_main.py",
        (Source("numpy/heat-equation/solution/heat_main.py"),
         Source("numpy/heat-equation/solution/heat.py")),
        argv=("-n", "6", "-i", "3"), data="bottle_dat"),
    Program(
        "game_of_life", "csc-training/hpc-python",
        "a7625fd02e0e7b71a24c5893d21cb41a4320ea73", "MIT", "game-of-life.py",
        (Source("numpy/game-of-life/solution/game-of-life.py"),),
        argv=("-d", "20", "-n", "3")),
    Program(
        "min_char_rnn", "asmaloney/min-char-rnn",
        "583f026737ddf35072b96c3eb74549dfc2777bbe", "BSD-3-Clause", "min-char-rnn.py",
        (Source("min-char-rnn.py", (('INPUT_FILE: str = "./data/Shakespeare-large.txt"',
                                     'INPUT_FILE: str = "./input.txt"'),
                                    ("TRAINING_HIDDEN_SIZE: int = 128 ", "TRAINING_HIDDEN_SIZE: int = 16 "),
                                    ("TRAINING_SEQUENCE_LENGTH: int = 50 ",
                                     "TRAINING_SEQUENCE_LENGTH: int = 8 "),
                                    ("INFERENCE_SAMPLE_SIZE: int = 300", "INFERENCE_SAMPLE_SIZE: int = 5"),
                                    ("    while True:\n", "    while iteration_number < 3:\n"))),),
        # the sampled token index is looked up in a dict: hashing it needs its value
        data="text", stop=Stop("tokens: StringList = [data.index_to_token[ix] for ix in indices]",
                               "hash() needs the values")),
    Program(
        "nielsen_network", "MichalDanielDobrzanski/DeepLearningPython",
        "2da41b6dd19dafae92db1facbc4ed19738e80551", "MIT", DRIVER,
        (Source("mnist_loader.py"), Source("network.py")),
        data="mnist_pkl_gz",
        # the driver is test.py's first two examples (read the data, train network.py's net)
        driver=("import mnist_loader\n"
                "training_data, validation_data, test_data = mnist_loader.load_data_wrapper()\n"
                "training_data = list(training_data)\n"
                "import network\n"
                "net = network.Network([784, 30, 10])\n"
                "net.SGD(training_data, 2, 10, 3.0, test_data=test_data)\n"),
        stop=Stop("return sum(int(x == y) for (x, y) in test_results)", "DataDependentError",
                  file="network.py")),
)

BY_NAME = {p.name: p for p in PROGRAMS}

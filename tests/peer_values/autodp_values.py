"""autodp (github.com/yuxiangw/autodp): the values its test suite publishes.

``test/unit_test_dp_sgd_poisson_sampling_add_remove.py`` lists 1344 Rényi-DP values of the
Poisson-subsampled Gaussian mechanism under add/remove (each composed over ``steps``) that were
produced by TensorFlow Privacy's ``rdp_accountant.compute_rdp``; autodp's test only checks its own
value is at least 0.99 times each of them. 38 of them are transcribed here, spread over every
(q, σ) block, order and number of steps of the grid. TF Privacy's computation is the exact RDP
(the removal direction, which dominates, Mironov, Talwar and Zhang 2019), so the rows are
``exact``. At integer orders TF Privacy sums a finite binomial series (accurate to about 1e-12
relative). At fractional orders it uses a truncated series whose values are off from the truth by
up to 6.3e-9 relative, in both directions (measured on the whole grid against a 40-digit
quadrature). ``peer_tolerance`` states that accuracy (1e-10 and 1e-8 relative), not autodp's
one-sided 1 % check. The rate-1 rows are the closed form α/(2σ²); the rate-0 rows are 0.

``papers/Aistats2021-AFA/afa_subsample.py`` (an experiment script, not a test) hard-codes ε at
δ = 1e-5 from the FFT accountant of Koskela et al. for σ = 2, q = 0.02 and 200–1500 steps, as an
"upper bound" list and an identical "lower bound" list. Its 200-step upper value is a row here (a
composed PLD is slow, so only one).
The lower list is kept only as a row that is not compared: its values lie above dp_accounting's
pessimistic PLD ε (0.573251 at 200 steps), so they cannot be sound lower bounds.

No test or test-like script of autodp publishes a fixed Laplace, randomized-response, sampling-
without-replacement or composed-ε value.
"""

from peer_values import PeerValue

SOURCE = "autodp"
COMMIT = "06489ea485653909397937cf5e3c31d06a677ffe"

FRACTIONAL = ("TF Privacy compute_rdp: exact RDP of the Poisson-subsampled Gaussian (add/remove); "
              "fractional order, truncated series accurate to ~1e-8 relative")
INTEGER = ("TF Privacy compute_rdp: exact RDP of the Poisson-subsampled Gaussian (add/remove); "
           "integer order, finite binomial sum")
CLOSED = "rate 1: the Gaussian mechanism's RDP, closed form alpha / (2 sigma^2)"
ZERO = "rate 0: nothing is released about the record, RDP is 0"
AFA_UPPER = ("FFT accountant (Koskela et al. 2021) upper bound on eps at delta, Poisson "
             "subsampling, hard-coded in the script")
AFA_LOWER = ("listed as the FFT accountant's lower bound, but identical to its upper-bound list "
             "and above dp_accounting's pessimistic PLD eps (0.573251 at 200 steps), so not a "
             "sound lower bound; not compared")

TFP = "test/unit_test_dp_sgd_poisson_sampling_add_remove.py"
AFA = "papers/Aistats2021-AFA/afa_subsample.py"

ROWS = (
    PeerValue(SOURCE, f"{TFP}:10", {"scheme": "poisson", "rate": 0.01}, ("gaussian", 0.1), 1,
              "rdp", 1.25, 39.47435359280898, "exact", peer_tolerance=1e-8 * 39.47435359280898,
              reason=FRACTIONAL, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:41", {"scheme": "poisson", "rate": 0.01}, ("gaussian", 0.1), 1000,
              "rdp", 4.5, 219079.06690372957, "exact", peer_tolerance=1e-8 * 219079.06690372957,
              reason=FRACTIONAL, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:74", {"scheme": "poisson", "rate": 0.01}, ("gaussian", 0.25), 10,
              "rdp", 2.0, 67.90784234628705, "exact", peer_tolerance=1e-10 * 67.90784234628705,
              reason=INTEGER, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:138", {"scheme": "poisson", "rate": 0.01}, ("gaussian", 0.5), 100,
              "rdp", 2.25, 0.8354117751916501, "exact", peer_tolerance=1e-8 * 0.8354117751916501,
              reason=FRACTIONAL, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:179", {"scheme": "poisson", "rate": 0.01}, ("gaussian", 1.0), 1,
              "rdp", 64.0, 27.32173187455178, "exact", peer_tolerance=1e-10 * 27.32173187455178,
              reason=INTEGER, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:202", {"scheme": "poisson", "rate": 0.01}, ("gaussian", 1.0), 1000,
              "rdp", 4.0, 0.36315404891075526, "exact", peer_tolerance=1e-10 * 0.36315404891075526,
              reason=INTEGER, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:266", {"scheme": "poisson", "rate": 0.01}, ("gaussian", 2.0), 5000,
              "rdp", 4.5, 0.32200127200261647, "exact", peer_tolerance=1e-8 * 0.32200127200261647,
              reason=FRACTIONAL, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:330", {"scheme": "poisson", "rate": 0.01}, ("gaussian", 10.0), 10000,
              "rdp", 10.0, 0.05029098115867569, "exact", peer_tolerance=1e-10 * 0.05029098115867569,
              reason=INTEGER, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:340", {"scheme": "poisson", "rate": 0.05}, ("gaussian", 0.1), 1,
              "rdp", 25.0, 1246.879445548381, "exact", peer_tolerance=1e-10 * 1246.879445548381,
              reason=INTEGER, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:362", {"scheme": "poisson", "rate": 0.05}, ("gaussian", 0.1), 1000,
              "rdp", 2.0, 94008.535452892, "exact", peer_tolerance=1e-10 * 94008.535452892,
              reason=INTEGER, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:404", {"scheme": "poisson", "rate": 0.05}, ("gaussian", 0.25), 10,
              "rdp", 64.0, 5089.567164205166, "exact", peer_tolerance=1e-10 * 5089.567164205166,
              reason=INTEGER, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:468", {"scheme": "poisson", "rate": 0.05}, ("gaussian", 0.5), 100,
              "rdp", 128.0, 25298.067928334716, "exact", peer_tolerance=1e-10 * 25298.067928334716,
              reason=INTEGER, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:500", {"scheme": "poisson", "rate": 0.05}, ("gaussian", 1.0), 1,
              "rdp", 4.5, 0.01437879709925404, "exact", peer_tolerance=1e-8 * 0.01437879709925404,
              reason=FRACTIONAL, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:523", {"scheme": "poisson", "rate": 0.05}, ("gaussian", 1.0), 1000,
              "rdp", 1.25, 2.485316298319207, "exact", peer_tolerance=1e-8 * 2.485316298319207,
              reason=FRACTIONAL, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:587", {"scheme": "poisson", "rate": 0.05}, ("gaussian", 2.0), 5000,
              "rdp", 2.0, 3.549057829374234, "exact", peer_tolerance=1e-10 * 3.549057829374234,
              reason=INTEGER, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:651", {"scheme": "poisson", "rate": 0.05}, ("gaussian", 10.0), 10000,
              "rdp", 2.25, 0.282691233053356, "exact", peer_tolerance=1e-8 * 0.282691233053356,
              reason=FRACTIONAL, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:661", {"scheme": "poisson", "rate": 0.1}, ("gaussian", 0.1), 1,
              "rdp", 4.0, 196.92988654267458, "exact", peer_tolerance=1e-10 * 196.92988654267458,
              reason=INTEGER, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:692", {"scheme": "poisson", "rate": 0.1}, ("gaussian", 0.1), 1000,
              "rdp", 64.0, 3197660.8659372753, "exact", peer_tolerance=1e-10 * 3197660.8659372753,
              reason=INTEGER, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:725", {"scheme": "poisson", "rate": 0.1}, ("gaussian", 0.25), 10,
              "rdp", 4.5, 330.3953345186479, "exact", peer_tolerance=1e-8 * 330.3953345186479,
              reason=FRACTIONAL, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:789", {"scheme": "poisson", "rate": 0.1}, ("gaussian", 0.5), 100,
              "rdp", 10.0, 1744.1572118895508, "exact", peer_tolerance=1e-10 * 1744.1572118895508,
              reason=INTEGER, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:821", {"scheme": "poisson", "rate": 0.1}, ("gaussian", 1.0), 1,
              "rdp", 2.0, 0.017036863236176647, "exact",
              peer_tolerance=1e-10 * 0.017036863236176647,
              reason=INTEGER, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:853", {"scheme": "poisson", "rate": 0.1}, ("gaussian", 1.0), 1000,
              "rdp", 25.0, 10101.473861818455, "exact", peer_tolerance=1e-10 * 10101.473861818455,
              reason=INTEGER, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:917", {"scheme": "poisson", "rate": 0.1}, ("gaussian", 2.0), 5000,
              "rdp", 64.0, 28304.336292076, "exact", peer_tolerance=1e-10 * 28304.336292076,
              reason=INTEGER, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:981", {"scheme": "poisson", "rate": 0.1}, ("gaussian", 10.0), 10000,
              "rdp", 128.0, 72.98431011732185, "exact", peer_tolerance=1e-10 * 72.98431011732185,
              reason=INTEGER, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:982", {"scheme": "poisson", "rate": 0.2}, ("gaussian", 0.1), 1,
              "rdp", 1.25, 54.4528141427903, "exact", peer_tolerance=1e-8 * 54.4528141427903,
              reason=FRACTIONAL, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:1013", {"scheme": "poisson", "rate": 0.2}, ("gaussian", 0.1), 1000,
              "rdp", 4.5, 222930.72268401325, "exact", peer_tolerance=1e-8 * 222930.72268401325,
              reason=FRACTIONAL, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:1046", {"scheme": "poisson", "rate": 0.2}, ("gaussian", 0.25), 10,
              "rdp", 2.0, 127.81126875972346, "exact", peer_tolerance=1e-10 * 127.81126875972346,
              reason=INTEGER, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:1110", {"scheme": "poisson", "rate": 0.2}, ("gaussian", 0.5), 100,
              "rdp", 2.25, 171.60611134797043, "exact", peer_tolerance=1e-8 * 171.60611134797043,
              reason=FRACTIONAL, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:1151", {"scheme": "poisson", "rate": 0.2}, ("gaussian", 1.0), 1,
              "rdp", 64.0, 30.365015454035202, "exact", peer_tolerance=1e-10 * 30.365015454035202,
              reason=INTEGER, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:1174", {"scheme": "poisson", "rate": 0.2}, ("gaussian", 1.0), 1000,
              "rdp", 4.0, 291.3230800667683, "exact", peer_tolerance=1e-10 * 291.3230800667683,
              reason=INTEGER, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:1238", {"scheme": "poisson", "rate": 0.2}, ("gaussian", 2.0), 5000,
              "rdp", 4.5, 144.3924255066305, "exact", peer_tolerance=1e-8 * 144.3924255066305,
              reason=FRACTIONAL, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:1302", {"scheme": "poisson", "rate": 0.2}, ("gaussian", 10.0), 10000,
              "rdp", 10.0, 20.35935314438469, "exact", peer_tolerance=1e-10 * 20.35935314438469,
              reason=INTEGER, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:1313", {"scheme": "poisson", "rate": 0.0}, ("gaussian", 1.0), 1000,
              "rdp", 2.5, 0, "exact", peer_tolerance=1e-15,
              reason=ZERO, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:1322", {"scheme": "poisson", "rate": 0.0}, ("gaussian", 10.0), 1,
              "rdp", 8.0, 0, "exact", peer_tolerance=1e-15,
              reason=ZERO, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:1331", {"scheme": "poisson", "rate": 1.0}, ("gaussian", 1.0), 1,
              "rdp", 2.5, 1.25, "exact", peer_tolerance=1e-12 * 1.25,
              reason=CLOSED, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:1341", {"scheme": "poisson", "rate": 1.0}, ("gaussian", 1.0), 1000,
              "rdp", 8.5, 4250.0, "exact", peer_tolerance=1e-12 * 4250.0,
              reason=CLOSED, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:1344", {"scheme": "poisson", "rate": 1.0}, ("gaussian", 10.0), 1,
              "rdp", 4.0, 0.02, "exact", peer_tolerance=1e-12 * 0.02,
              reason=CLOSED, commit=COMMIT),
    PeerValue(SOURCE, f"{TFP}:1351", {"scheme": "poisson", "rate": 1.0}, ("gaussian", 10.0), 1000,
              "rdp", 4.5, 22.5, "exact", peer_tolerance=1e-12 * 22.5,
              reason=CLOSED, commit=COMMIT),
    PeerValue(SOURCE, f"{AFA}:62", {"scheme": "poisson", "rate": 0.02}, ("gaussian", 2.0), 200,
              "epsilon", 1e-5, 0.5738987073827246, "upper", accountant="pld", reason=AFA_UPPER,
              commit=COMMIT),
    PeerValue(SOURCE, f"{AFA}:61", {"scheme": "poisson", "rate": 0.02}, ("gaussian", 2.0), 200,
              "epsilon", 1e-5, 0.5738987073827246, "none", accountant="pld", reason=AFA_LOWER,
              commit=COMMIT),
)

"""FSRS-6 parameters fitted by fsrs-rs (fsrs-rs-python) to training items read as JSON on stdin:
{"ratings": [...], "deltas": [...], "lengths": [...], "browser": [21 numbers]}, flat as the
browser's optimiser takes them (item i is the next lengths[i] reviews), with the parameters the
browser fitted. Prints {"params": [21 numbers], "logLoss": {"defaults", "reference", "browser"}}:
the reference's parameters and fsrs-rs's own log-loss of each set on the items."""
import json
import sys

from fsrs_rs_python import DEFAULT_PARAMETERS, FSRS, FSRSItem, FSRSReview


def main() -> None:
    data = json.load(sys.stdin)
    ratings, deltas, lengths = data["ratings"], data["deltas"], data["lengths"]
    items = []
    start = 0
    for length in lengths:
        reviews = [FSRSReview(ratings[i], deltas[i]) for i in range(start, start + length)]
        items.append(FSRSItem(reviews))
        start += length
    params = list(FSRS(DEFAULT_PARAMETERS).compute_parameters(items, enable_short_term=True))
    loss = {
        "defaults": FSRS(DEFAULT_PARAMETERS).evaluate(items).log_loss,
        "reference": FSRS(params).evaluate(items).log_loss,
        "browser": FSRS(data["browser"]).evaluate(items).log_loss,
    }
    json.dump({"params": params, "logLoss": loss}, sys.stdout)


if __name__ == "__main__":
    main()

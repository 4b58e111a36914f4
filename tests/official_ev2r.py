"""The official Ev²R pipeline's behaviour (TSVer's `baseline/predict_ev2r.py`), as `../shared/specs/tsver.md`
describes it point by point, for the tests to run beside `benchscore tsver --judge-url`.

It is written from the spec, not from our code: the template is taken by running the pinned official
file (as the official pipeline's import does; only a test does this, never the library), requests
go through the `openai` client with `extra_body`, as the official script sends them, one claim at a
time, and the reply is read with the official regular expression and `json.loads`.
"""

import json
import os
import re
import runpy

import openai

OFFICIAL_BLOCK = r"```json\s*(\{.*?\})\s*```"


def official_template(path):
    return runpy.run_path(os.fspath(path))["TEMPLATE_EV2R"]


def predict_ev2r(base_url, template_path, gold_path, predictions_path, output_path,
                 model="google/gemini-2.5-flash", api_key="not-needed"):
    """Appends one {"Claim", "ev2r_response"} line per judged claim to `output_path` (claims already
    there are skipped); three attempts per claim, then the claim is left out silently."""
    template = official_template(template_path)
    client = openai.OpenAI(base_url=base_url, api_key=api_key, max_retries=0)
    with open(gold_path, encoding="utf-8") as f:
        gold = [json.loads(line) for line in f if line.strip()]
    predictions = {}
    with open(predictions_path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                record = json.loads(line)
                predictions[record["Claim"]] = record
    done = set()
    if os.path.exists(output_path):
        with open(output_path, encoding="utf-8") as f:
            done = {json.loads(line)["Claim"] for line in f if line.strip()}
    with open(output_path, "a", encoding="utf-8") as out:
        for claim in gold:
            text = claim["Claim"]
            prediction = predictions.get(text)
            if text in done or prediction is None or prediction.get("Explanation") is None:
                continue
            prompt = template.format(claim_text=text, reference_evidence="\n".join(claim["Justifications"]),
                                     predicted_evidence=prediction["Explanation"])
            for _ in range(3):
                try:
                    answer = client.chat.completions.create(
                        model=model, messages=[{"role": "user", "content": prompt}],
                        extra_body={"reasoning": {"effort": "medium", "exclude": True}})
                    record = json.loads(re.search(OFFICIAL_BLOCK, answer.choices[0].message.content, re.DOTALL)
                                        .group(1))
                except Exception:  # noqa: BLE001 - the official pipeline retries on any failure
                    continue
                out.write(json.dumps({"Claim": text, "ev2r_response": record}) + "\n")
                break


def official_ev2r_score(records_path):
    """compute_metrics.py's Ev²R over a record file: micro sums, R = sp / cr (sic), rounded, x100."""
    cp = sp = cr = 0
    with open(records_path, encoding="utf-8") as f:
        for line in f:
            response = json.loads(line)["ev2r_response"]
            cp += response.get("facts count predicted evidence", 0)
            sp += response.get("support predicted evidence", 0)
            cr += response.get("facts count reference evidence", 0)
    p = sp / cp if cp else 0.0
    r = sp / cr if cr else 0.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    return round(round(f1, 4) * 100, 2)

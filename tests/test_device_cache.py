"""Device measurements kept between run processes (run/device_cache.py): reused on the same GPU, software and code
for a day, measured again otherwise."""

from sssp_bench.run import device_cache
from sssp_bench.run.provenance import _pci_text, _uuid_text

H200_0 = {"name": "NVIDIA H200", "uuid": "GPU-b4072719-ce64-5a65-cc32-3d58dee2ddee", "pci_bus_id": "0000:1b:00",
          "driver_version": "13.0", "cuda_runtime_version": "13.0", "cupy_version": "14.0.0"}


class Measure:
    """A stand-in measurement that counts its calls."""

    def __init__(self):
        self.calls = 0

    def __call__(self):
        self.calls += 1
        return {"copy_bandwidth_gbs": 3000.0 + self.calls}


def test_a_second_process_on_the_same_gpu_reuses_the_measurement_and_says_so(tmp_path):
    measure = Measure()
    first = device_cache.remembered(tmp_path, "device", H200_0, measure, now=1000.0)
    again = device_cache.remembered(tmp_path, "device", H200_0, measure, now=1060.0)
    assert measure.calls == 1
    assert first == {"copy_bandwidth_gbs": 3001.0}
    assert again["copy_bandwidth_gbs"] == 3001.0
    assert again["reused"]["age_s"] == 60.0


def test_another_gpu_driver_or_graph_is_measured_anew(tmp_path):
    measure = Measure()
    device_cache.remembered(tmp_path, "relax", H200_0, measure, parts={"graph": "abc", "weights": "keep"}, now=0.0)
    other_gpu = {**H200_0, "uuid": "GPU-2e7c8727-3482-6d53-c039-3d10d5e99ad6"}
    new_driver = {**H200_0, "driver_version": "13.1"}
    device_cache.remembered(tmp_path, "relax", other_gpu, measure, parts={"graph": "abc", "weights": "keep"}, now=1.0)
    device_cache.remembered(tmp_path, "relax", new_driver, measure, parts={"graph": "abc", "weights": "keep"}, now=2.0)
    device_cache.remembered(tmp_path, "relax", H200_0, measure, parts={"graph": "abd", "weights": "keep"}, now=3.0)
    assert measure.calls == 4


def test_a_day_old_measurement_is_taken_again(tmp_path):
    measure = Measure()
    device_cache.remembered(tmp_path, "device", H200_0, measure, now=0.0)
    later = device_cache.remembered(tmp_path, "device", H200_0, measure, now=device_cache.MAX_AGE_S + 1)
    assert measure.calls == 2 and "reused" not in later
    assert device_cache.remembered(tmp_path, "device", H200_0, measure, now=device_cache.MAX_AGE_S + 2)["reused"]


def test_off_unnamed_gpus_and_damaged_files_measure_every_time(tmp_path, monkeypatch):
    measure = Measure()
    assert device_cache.identity_of({"name": "NVIDIA H200", "uuid": None, "pci_bus_id": None}) is None
    device_cache.remembered(tmp_path, "device", None, measure)
    device_cache.remembered(tmp_path, "device", None, measure)
    assert measure.calls == 2 and not list(tmp_path.iterdir())
    device_cache.remembered(tmp_path, "device", H200_0, measure, now=0.0)
    for stored in tmp_path.iterdir():
        stored.write_text("{not json")
    assert "reused" not in device_cache.remembered(tmp_path, "device", H200_0, measure, now=1.0)
    monkeypatch.setenv(device_cache.DISABLE_VARIABLE, "off")
    device_cache.remembered(tmp_path, "device", H200_0, measure, now=2.0)
    assert measure.calls == 5


def test_the_gpu_is_named_as_nvidia_smi_names_it():
    assert _uuid_text(bytes.fromhex("b4072719ce645a65cc323d58dee2ddee")) == H200_0["uuid"]
    assert _uuid_text(b"short") is None
    assert _pci_text({"pciDomainID": 0, "pciBusID": 27, "pciDeviceID": 0}) == "0000:1b:00"
    assert _pci_text({}) is None

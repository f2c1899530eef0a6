"""What the light and the sensor do to the picture: uneven light, colour cast, exposure,
glare, blur, noise and JPEG. Pure functions over float32 BGR images in [0, 1]."""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

#: Named light settings: (BGR gains, exposure, shadow strength, light elevation range).
LIGHTS: dict[str, tuple[tuple[float, float, float], float, float, tuple[float, float]]] = {
    "studio": ((1.0, 1.0, 1.0), 1.0, 0.5, (50.0, 75.0)),
    "daylight": ((1.08, 1.0, 0.94), 1.02, 0.45, (35.0, 65.0)),
    "overcast": ((1.05, 1.0, 0.97), 0.9, 0.25, (55.0, 85.0)),
    "kitchen": ((0.82, 0.96, 1.08), 0.95, 0.5, (45.0, 75.0)),
    "tungsten": ((0.62, 0.86, 1.12), 0.85, 0.55, (40.0, 70.0)),
    "window": ((1.04, 1.0, 0.96), 1.05, 0.6, (25.0, 45.0)),
    "dim": ((0.85, 0.95, 1.05), 0.55, 0.4, (40.0, 70.0)),
}


@dataclass(frozen=True)
class Photometric:
    """Settings of the light and the camera's sensor.

    ``gains``: BGR colour cast; ``exposure``: overall gain; ``gradient``: (angle_deg,
    amount) of a linear light falloff across the frame; ``vignette``: corner darkening;
    ``glare``: (x, y, radius, strength) in frame fractions, or None; ``blur``: Gaussian
    sigma in px; ``motion``: (length px, angle deg) or None; ``noise``: sigma in [0, 1]
    units; ``jpeg_quality``: 1..100.
    """

    light: str = "studio"
    gains: tuple[float, float, float] = (1.0, 1.0, 1.0)
    exposure: float = 1.0
    gradient: tuple[float, float] = (0.0, 0.0)
    vignette: float = 0.2
    glare: tuple[float, float, float, float] | None = None
    blur: float = 0.0
    motion: tuple[float, float] | None = None
    noise: float = 0.01
    jpeg_quality: int = 90

    def conditions(self) -> dict[str, object]:
        return {
            "light": self.light,
            "colour_cast": [round(g, 3) for g in self.gains],
            "exposure": round(self.exposure, 3),
            "gradient": [round(v, 3) for v in self.gradient],
            "vignette": round(self.vignette, 3),
            "glare": None if self.glare is None else [round(v, 3) for v in self.glare],
            "blur": round(self.blur, 3),
            "motion_blur": None if self.motion is None else [round(v, 2) for v in self.motion],
            "noise": round(self.noise, 4),
            "jpeg_quality": self.jpeg_quality,
        }


def sample_photometric(
    rng: np.random.Generator, light: str | None = None, harsh: bool = False
) -> Photometric:
    """Random light and sensor settings (``harsh`` widens every range)."""
    name = light or str(rng.choice(list(LIGHTS)))
    gains, exposure, _, _ = LIGHTS[name]
    jitter = 0.08 if harsh else 0.04
    g = np.array(gains) * rng.uniform(1 - jitter, 1 + jitter, 3)
    g /= g.mean() / np.mean(gains)
    exp = exposure * rng.uniform(0.8, 1.25) if harsh else exposure * rng.uniform(0.92, 1.1)
    grad = (float(rng.uniform(0, 360)), float(rng.uniform(0.0, 0.55 if harsh else 0.35)))
    glare = None
    if rng.random() < (0.45 if harsh else 0.25):
        glare = (
            float(rng.uniform(0.2, 0.8)),
            float(rng.uniform(0.2, 0.8)),
            float(rng.uniform(0.05, 0.18)),
            float(rng.uniform(0.25, 0.8 if harsh else 0.5)),
        )
    blur = float(rng.uniform(0.0, 2.4 if harsh else 1.0))
    motion = None
    if rng.random() < (0.2 if harsh else 0.06):
        motion = (float(rng.uniform(3, 12 if harsh else 6)), float(rng.uniform(0, 180)))
    base_noise = 0.03 if name == "dim" else 0.012
    noise = float(rng.uniform(0.3, 2.5 if harsh else 1.3) * base_noise)
    quality = int(rng.integers(35 if harsh else 70, 96))
    return Photometric(
        name,
        tuple(float(v) for v in g),
        float(exp),
        grad,
        float(rng.uniform(0.05, 0.4)),
        glare,
        blur,
        motion,
        noise,
        quality,
    )


def light_field(width: int, height: int, photo: Photometric) -> np.ndarray:
    """The multiplicative light falloff (height, width) float32: gradient and vignette."""
    ang, amount = photo.gradient
    a = math.radians(ang)
    xs = (np.arange(width, dtype=np.float32) - width / 2) / max(width, height)
    ys = (np.arange(height, dtype=np.float32) - height / 2) / max(width, height)
    lin = (xs[None, :] * math.cos(a) + ys[:, None] * math.sin(a)) * amount * 1.6
    r2 = xs[None, :] ** 2 + ys[:, None] ** 2
    return ((1.0 + lin) * (1.0 - photo.vignette * r2 * 2.2)).astype(np.float32)


def apply_light(image: np.ndarray, photo: Photometric) -> np.ndarray:
    """Uneven light, colour cast, exposure and glare. (H, W, 3) float32 -> same."""
    h, w = image.shape[:2]
    field = light_field(w, h, photo) * photo.exposure
    out = image * field[..., None] * np.array(photo.gains, np.float32)[None, None, :]
    if photo.glare is not None:
        gx, gy, gr, gs = photo.glare
        xs = (np.arange(w, dtype=np.float32) / w - gx) ** 2
        ys = (np.arange(h, dtype=np.float32) / h - gy) ** 2
        blob = np.exp(-(xs[None, :] + ys[:, None] * (h / w) ** 2) / (2 * gr * gr))
        # Glare washes colour out toward the light's colour.
        out += (gs * blob)[..., None] * (1.0 - 0.5 * out)
    return out


def apply_sensor(image: np.ndarray, photo: Photometric, rng: np.random.Generator) -> np.ndarray:
    """Blur, noise and quantisation. (H, W, 3) float32 in ~[0, 1] -> uint8 ``frame_bgr``."""
    out = image
    if photo.blur > 0.25:
        out = cv2.GaussianBlur(out, (0, 0), photo.blur)
    if photo.motion is not None:
        length, ang = photo.motion
        k = int(max(3, round(length)))
        kernel = np.zeros((k, k), np.float32)
        c = (k - 1) / 2
        dx, dy = math.cos(math.radians(ang)) * c, math.sin(math.radians(ang)) * c
        cv2.line(kernel, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1)
        kernel /= kernel.sum()
        out = cv2.filter2D(out, -1, kernel)
    if photo.noise > 0:
        h, w = out.shape[:2]
        # Luminance-dependent shot noise plus blotchy (demosaiced) chroma noise.
        lum = rng.standard_normal((h, w), dtype=np.float32) * 0.8
        chroma = rng.standard_normal(((h + 1) // 2, (w + 1) // 2, 3), dtype=np.float32) * 0.5
        chroma = cv2.resize(chroma, (w, h), interpolation=cv2.INTER_LINEAR)
        amp = cv2.sqrt(np.clip(out, 0, 1)) * (0.8 * photo.noise) + 0.4 * photo.noise
        out = out + amp * (cv2.merge([lum] * 3) + chroma)
    return np.clip(out * 255.0 + 0.5, 0, 255).astype(np.uint8)


def jpeg_roundtrip(frame_bgr: np.ndarray, quality: int) -> tuple[np.ndarray, bytes]:
    """Encode as JPEG; returns the decoded frame (H, W, 3) uint8 and the file bytes."""
    ok, buf = cv2.imencode(".jpg", frame_bgr, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    data = buf.tobytes()
    return cv2.imdecode(buf, cv2.IMREAD_COLOR), data

"""The imperceptibility regressor of §3.2: two ReLU hidden layers and a sigmoid output, MSE, Adam.

Split out of ``datagen.targets.abstractness`` (which trains, saves and loads it as a word scorer).
"""

import contextlib

import numpy as np
import torch
from torch import nn


@contextlib.contextmanager
def _one_thread():
    """A tiny MLP is fastest on one thread; several threads spin badly on a shared, busy CPU."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


class _Network(nn.Module):
    def __init__(self, *, dim: int, hidden: tuple[int, int], dropout: float) -> None:
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(dim, hidden[0]),
            nn.ReLU(),
            nn.Dropout(dropout),
            nn.Linear(hidden[0], hidden[1]),
            nn.ReLU(),
            nn.Dropout(dropout),
            nn.Linear(hidden[1], 1),
            nn.Sigmoid(),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers(x).squeeze(-1)  # Shape: (batch,)


class AbstractnessRegressor:
    """Two ReLU hidden layers + sigmoid output, MSE loss, Adam; inputs standardised; seeded."""

    def __init__(
        self,
        *,
        hidden: tuple[int, int] = (256, 64),
        epochs: int = 60,
        lr: float = 1e-3,
        weight_decay: float = 1e-4,
        dropout: float = 0.2,
        batch_size: int = 128,
        seed: int = 0,
    ) -> None:
        self.hidden = tuple(hidden)
        self.epochs = epochs
        self.lr = lr
        self.weight_decay = weight_decay
        self.dropout = dropout
        self.batch_size = batch_size
        self.seed = seed

    def get_params(self) -> dict:
        return {
            name: getattr(self, name)
            for name in ("hidden", "epochs", "lr", "weight_decay", "dropout", "batch_size", "seed")
        }

    def _check(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=np.float32)
        if X.ndim != 2:
            raise ValueError(f"expected a 2-d feature matrix, got shape {X.shape}")
        return X

    def fit(self, X: np.ndarray, y: np.ndarray) -> "AbstractnessRegressor":
        X, y = self._check(X), np.asarray(y, dtype=np.float32)
        if len(X) != len(y) or len(y) == 0:
            raise ValueError(f"fit needs as many targets as rows (got {len(X)} rows, {len(y)} targets)")
        self.mean_ = X.mean(0)
        self.scale_ = X.std(0) + 1e-6
        generator = torch.Generator().manual_seed(self.seed)
        torch.manual_seed(self.seed)
        self.network_ = _Network(dim=X.shape[1], hidden=self.hidden, dropout=self.dropout)
        optimizer = torch.optim.Adam(self.network_.parameters(), lr=self.lr, weight_decay=self.weight_decay)
        inputs = torch.from_numpy((X - self.mean_) / self.scale_)  # Shape: (n, dim)
        targets = torch.from_numpy(y)  # Shape: (n,)
        self.loss_curve_: list[float] = []
        self.network_.train()
        with _one_thread():
            self._train(optimizer, inputs, targets, generator)
        self.network_.eval()
        return self

    def _train(
        self, optimizer, inputs: torch.Tensor, targets: torch.Tensor, generator: torch.Generator
    ) -> None:
        n = len(targets)
        for _ in range(self.epochs):
            order = torch.randperm(n, generator=generator)
            total = 0.0
            for start in range(0, n, self.batch_size):
                batch = order[start : start + self.batch_size]
                loss = nn.functional.mse_loss(self.network_(inputs[batch]), targets[batch])
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                total += loss.item() * len(batch)
            self.loss_curve_.append(total / n)

    def predict(self, X: np.ndarray) -> np.ndarray:
        X = self._check(X)
        inputs = torch.from_numpy((X - self.mean_) / self.scale_)  # Shape: (n, dim)
        with torch.no_grad(), _one_thread():
            return self.network_(inputs).numpy()  # Shape: (n,)

    def state(self) -> dict:
        return {
            "params": self.get_params(),
            "mean": torch.from_numpy(self.mean_),
            "scale": torch.from_numpy(self.scale_),
            "network": self.network_.state_dict(),
            "loss_curve": list(self.loss_curve_),
        }

    @classmethod
    def from_state(cls, state: dict) -> "AbstractnessRegressor":
        params = dict(state["params"])
        params["hidden"] = tuple(params["hidden"])
        regressor = cls(**params)
        regressor.mean_ = state["mean"].numpy()
        regressor.scale_ = state["scale"].numpy()
        regressor.network_ = _Network(
            dim=len(regressor.mean_), hidden=regressor.hidden, dropout=regressor.dropout
        )
        regressor.network_.load_state_dict(state["network"])
        regressor.network_.eval()
        regressor.loss_curve_ = list(state["loss_curve"])
        return regressor

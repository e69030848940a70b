"""mesh: a 3-D finite-element mesh (stands in for H-BF's msdoor, a structural mesh of a door).

Lattice nodes are coupled to their 6, 18 or 26 nearest neighbours; each node has `dofs` unknowns, every unknown
is joined to the node's other unknowns and to every unknown of its neighbours, optionally to itself (a matrix's
diagonal). Ids are node-major, x fastest, so the adjacency is banded like a mesh's matrix.
"""

from __future__ import annotations

import itertools

import numpy as np

from ..build import csr_from_edges
from ..rng import STREAM_SELF_LOOPS, stream_key, uniform_ints
from .common import check_weights, edge_weights, generator, seed_param, weight_params
from .spec import INT32_MAX, Param, Params

MESH_NEIGHBOURS = (6, 18, 26)  # face; face and edge; face, edge and corner neighbours of a lattice node


def mesh_half_stencil(neighbours: int) -> list[tuple[int, int, int]]:
    """Offsets (dx, dy, dz) to half of a node's `neighbours` lattice neighbours, the lexicographically positive
    ones: each link between two nodes is listed once. 6, 18 and 26 keep offsets with at most 1, 2, 3 nonzeros."""
    nonzeros = MESH_NEIGHBOURS.index(neighbours) + 1
    return [offset for offset in itertools.product((-1, 0, 1), repeat=3)
            if offset > (0, 0, 0) and sum(map(abs, offset)) <= nonzeros]


def _build_mesh(params: Params):
    """Node links of the lattice (x fastest, then y, then z), each blown up into every pair of the two nodes'
    unknowns; plus every pair of one node's own unknowns. Edge ids in that order draw the weights."""
    nx, ny, nz, dofs = params["nx"], params["ny"], params["nz"], params["dofs"]
    nodes = np.arange(nx * ny * nz, dtype=np.int64)
    x, y, z = nodes % nx, nodes // nx % ny, nodes // (nx * ny)
    tails, heads = [], []
    for dx, dy, dz in mesh_half_stencil(params["neighbours"]):
        inside = ((x + dx >= 0) & (x + dx < nx) & (y + dy >= 0) & (y + dy < ny)
                  & (z + dz >= 0) & (z + dz < nz))
        tails.append(nodes[inside])
        heads.append(nodes[inside] + dx + dy * nx + dz * nx * ny)
    link_tails, link_heads = np.concatenate(tails), np.concatenate(heads)
    sources, targets = [], []
    for i, j in itertools.product(range(dofs), repeat=2):
        sources.append(link_tails * dofs + i)
        targets.append(link_heads * dofs + j)
    for i, j in itertools.combinations(range(dofs), 2):
        sources.append(nodes * dofs + i)
        targets.append(nodes * dofs + j)
    sources, targets = np.concatenate(sources), np.concatenate(targets)
    vertices = len(nodes) * dofs
    weights = edge_weights(params["seed"], len(sources), params["wmin"], params["wmax"])
    if not params["self_loops"]:
        return (*csr_from_edges(vertices, sources, targets, weights, False), False)
    # Stored as arcs: an undirected loop would be stored twice. Each edge gives u -> v then v -> u, as the
    # undirected build stores it, after the loops, so a row holds its loop first and then the same arcs in the
    # same order as without loops.
    loops = np.arange(vertices, dtype=np.int64)
    loop_weights = uniform_ints(stream_key(params["seed"], STREAM_SELF_LOOPS), vertices, params["wmin"],
                                params["wmax"])
    arc_tails = np.concatenate([loops, np.stack([sources, targets], axis=1).ravel()])
    arc_heads = np.concatenate([loops, np.stack([targets, sources], axis=1).ravel()])
    arc_weights = np.concatenate([loop_weights, np.repeat(weights, 2)])
    return (*csr_from_edges(vertices, arc_tails, arc_heads, arc_weights, True), False)


def _check_mesh(params: Params) -> str | None:
    vertices = params["nx"] * params["ny"] * params["nz"] * params["dofs"]
    if vertices > INT32_MAX:
        return f"nx*ny*nz*dofs = {vertices} vertices do not fit int32 vertex ids"
    return None


GENERATORS = [
    generator(
        "mesh",
        "3-D finite-element mesh: an nx x ny x nz lattice of nodes, each coupled to its 6, 18 or 26 nearest "
        "lattice neighbours, `dofs` unknowns per node, every unknown joined to the node's other unknowns and to "
        "every unknown of its neighbours; ids node-major, x fastest (banded), undirected (H-BF msdoor: "
        "mesh:nx=161,ny=123,nz=7,dofs=3,self_loops=true)",
        {"nx": Param(int, 16, "nodes along x (ids run fastest along x)", minimum=1, maximum=INT32_MAX),
         "ny": Param(int, 16, "nodes along y", minimum=1, maximum=INT32_MAX),
         "nz": Param(int, 16, "nodes along z", minimum=1, maximum=INT32_MAX),
         "dofs": Param(int, 1, "unknowns per node (3: a structural mesh's displacements)", minimum=1, maximum=8),
         "neighbours": Param(int, 18, "lattice neighbours a node is coupled to: 6 (faces), 18 (faces and "
                             "edges of the 3x3x3 block), 26 (all of it)", choices=MESH_NEIGHBOURS),
         "self_loops": Param(bool, False, "an arc from every unknown to itself (a matrix's diagonal)"),
         **seed_param(), **weight_params()},
        _build_mesh, check_weights, _check_mesh,
    ),
]

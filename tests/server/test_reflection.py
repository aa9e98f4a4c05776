"""Server reflection: generic gRPC tooling can list and call the services with
no ``.proto`` file and none of the project's generated code at hand.

The client is a separate Python process that imports only ``grpc``,
``grpc_reflection`` and ``protobuf`` (it checks that no ``unoplay`` module got
imported). It lists the services, fetches the file descriptors of
``unoplay/v1/game_service.proto`` and its dependencies through the raw
reflection stub, then builds a descriptor pool from reflection alone
(``ProtoReflectionDescriptorDatabase``) and calls ``LobbyService.ListTables``
with message classes made from that pool and a generic unary call.
"""

from __future__ import annotations

import asyncio
import json
import sys

from unoplay.game.rules import RuleSet
from unoplay.server.service import start_server

WAIT = 60  # seconds: upper bound for the client process and each of its calls

CLIENT = r"""
import json, sys

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase)

address, wait = sys.argv[1], float(sys.argv[2])
out = {}
with grpc.insecure_channel(address) as channel:
    grpc.channel_ready_future(channel).result(timeout=wait)
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)

    # 1. The raw reflection stream: list the services.
    replies = stub.ServerReflectionInfo(
        iter([reflection_pb2.ServerReflectionRequest(list_services="")]), timeout=wait)
    out["services"] = sorted(s.name for r in replies for s in r.list_services_response.service)

    # 2. The file descriptors of game_service.proto, with its dependencies.
    request = reflection_pb2.ServerReflectionRequest(
        file_by_filename="unoplay/v1/game_service.proto")
    files = {}
    for reply in stub.ServerReflectionInfo(iter([request]), timeout=wait):
        assert reply.WhichOneof("message_response") == "file_descriptor_response", reply
        for raw in reply.file_descriptor_response.file_descriptor_proto:
            proto = descriptor_pb2.FileDescriptorProto.FromString(raw)
            files[proto.name] = proto
    game_service = files["unoplay/v1/game_service.proto"]
    out["files"] = sorted(files)
    out["game_service_dependencies"] = list(game_service.dependency)
    out["game_service_package"] = game_service.package
    out["game_service_methods"] = {
        s.name: {m.name: [m.input_type, m.output_type, m.client_streaming, m.server_streaming]
                 for m in s.method} for s in game_service.service}
    # The descriptors are complete: they load into an empty pool, dependencies first.
    loaded = descriptor_pool.DescriptorPool()
    for name in ("unoplay/v1/game.proto", "unoplay/v1/lobby_service.proto",
                 "unoplay/v1/game_service.proto"):
        loaded.Add(files[name])
    out["play_request_fields"] = [
        f.name for f in loaded.FindMessageTypeByName("unoplay.v1.PlayRequest").fields]

    # 3. Generic tooling: a pool fed by reflection on demand, and a dynamic call.
    pool = descriptor_pool.DescriptorPool(ProtoReflectionDescriptorDatabase(channel))
    service = pool.FindServiceByName("unoplay.v1.LobbyService")
    method = service.methods_by_name["ListTables"]
    request_class = message_factory.GetMessageClass(method.input_type)
    reply_class = message_factory.GetMessageClass(method.output_type)
    list_tables = channel.unary_unary(
        f"/{service.full_name}/{method.name}",
        request_serializer=request_class.SerializeToString,
        response_deserializer=reply_class.FromString)
    reply = list_tables(request_class(), timeout=wait)
    out["reply_type"] = reply.DESCRIPTOR.full_name
    out["tables"] = [{"title": t.title, "seats": len(t.seats),
                      "state": t.DESCRIPTOR.fields_by_name["state"].enum_type
                              .values_by_number[t.state].name,
                      "target_score": t.rules.target_score} for t in reply.tables]

out["project_modules_imported"] = sorted(m for m in sys.modules if m.startswith("unoplay"))
print(json.dumps(out))
"""


async def run_client(address: str) -> dict:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        CLIENT,
        address,
        str(WAIT),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(), WAIT)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise AssertionError(f"the reflection client did not finish in {WAIT}s") from None
    assert process.returncode == 0, err.decode()[-3000:]
    return json.loads(out.decode().strip().splitlines()[-1])


async def test_reflection_lists_services_serves_descriptors_and_enables_dynamic_calls():
    server = await start_server("127.0.0.1", 0)
    try:
        server.lobby.create("Reflected", 3, RuleSet(target_score=250))
        out = await run_client(server.address)
    finally:
        await server.stop(None)

    assert out["project_modules_imported"] == []
    assert {"unoplay.v1.LobbyService", "unoplay.v1.GameService", "grpc.health.v1.Health"} <= set(
        out["services"]
    )
    assert any(s.startswith("grpc.reflection.") for s in out["services"])

    assert out["game_service_package"] == "unoplay.v1"
    assert set(out["game_service_dependencies"]) == {
        "unoplay/v1/game.proto",
        "unoplay/v1/lobby_service.proto",
    }
    assert {
        "unoplay/v1/game_service.proto",
        "unoplay/v1/game.proto",
        "unoplay/v1/lobby_service.proto",
    } <= set(out["files"])
    methods = out["game_service_methods"]["GameService"]
    assert methods["Play"] == [".unoplay.v1.PlayRequest", ".unoplay.v1.PlayResponse", True, True]
    assert methods["Spectate"][2:] == [False, True]
    assert out["play_request_fields"] == ["join", "intent"]

    assert out["reply_type"] == "unoplay.v1.ListTablesResponse"
    assert out["tables"] == [
        {"title": "Reflected", "seats": 3, "state": "TABLE_STATE_WAITING", "target_score": 250}
    ]

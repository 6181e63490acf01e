package io.github.procscope.kubernetes;

import io.grpc.stub.StreamObserver;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/** A unary gRPC call's answer as a future. */
final class Calls {
    private Calls() {
    }

    /**
     * @param <T>   the answer
     * @param start starts the call with the observer it is given (an async stub's method)
     * @return the answer, or the call's failure ({@link io.grpc.StatusRuntimeException})
     */
    static <T> CompletableFuture<T> unary(Consumer<StreamObserver<T>> start) {
        CompletableFuture<T> answer = new CompletableFuture<>();
        start.accept(new StreamObserver<T>() {
            @Override
            public void onNext(T value) {
                answer.complete(value);
            }

            @Override
            public void onError(Throwable t) {
                answer.completeExceptionally(t);
            }

            @Override
            public void onCompleted() {
                if (!answer.isDone()) {
                    answer.completeExceptionally(new IllegalStateException("the call ended without an answer"));
                }
            }
        });
        return answer;
    }
}
